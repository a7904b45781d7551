module kothd

go 1.26

require (
	github.com/PuerkitoBio/goquery v1.13.0
	github.com/mattn/go-sqlite3 v1.14.52
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/andybalholm/cascadia v1.3.4 // indirect
	github.com/kr/text v0.2.0 // indirect
	golang.org/x/net v0.58.0 // indirect
	gopkg.in/check.v1 v1.0.0-20201130134442-10cb98267c6c // indirect
)
