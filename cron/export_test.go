package cron

// What the package's external tests (package cron_test, which drive the cycle through
// cron/crontest as a game's tests do) share with its in-package tests.

type SyncBuffer = syncBuffer

var WaitFor = waitFor
