package main

import (
	"fmt"

	"kothd/cron"
)

func runEngines() error {
	for _, e := range cron.Engines() {
		fmt.Println(e)
	}
	return nil
}
