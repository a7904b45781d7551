module github.com/kothd/kothd

go 1.26

require (
	github.com/PuerkitoBio/goquery v1.13.0
	github.com/go-co-op/gocron/v2 v2.21.2
	github.com/google/go-github/v60 v60.0.0
	github.com/mattn/go-sqlite3 v1.14.52
	github.com/mtibben/confusables v0.0.0-20210201002637-9d1b0723b659
	github.com/robfig/cron/v3 v3.0.1
	github.com/yuin/goldmark v1.8.7
	golang.org/x/net v0.58.0
	golang.org/x/text v0.41.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/andybalholm/cascadia v1.3.4 // indirect
	github.com/google/go-querystring v1.1.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/jonboulle/clockwork v0.5.0 // indirect
	github.com/kr/pretty v0.2.1 // indirect
)
