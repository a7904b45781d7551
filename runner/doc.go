// Package runner holds no code of its own: it is the home of everything that runs bots.
//
//	runner/sandbox    a bot's process where it can harm nothing: bwrap, seccomp, cgroups,
//	                  uids, a tmpfs per bot, limits, the launcher, a one-shot run
//	runner/build      building an answer with its language's command inside the sandbox;
//	                  the memo of failed builds and class listings
//	runner/protocol   the one interface the cycle plays every protocol through
//	                  (protocol.Protocol) and what the protocols share: fault accounting,
//	                  benching, scratch copies of bot directories
//	runner/protocol/pyclass, argv, dirfiles
//	                  one folder per bot protocol: how an answer becomes bots, how a bot is
//	                  validated, the processes of a run; the only places that turn a
//	                  protocol into processes
//	runner/protocol/all  the list of a build's protocols, by the name a game gives
//	runner/dirsnap    what a bot changed in its directory (a Mafia checkpoint's kept files)
//
// Imports point one way, down this list's reverse: protocol/all → each protocol →
// (protocol, build) → sandbox → engine. Nothing under runner/ imports the cycle (cron), the
// store, the scraper or the publisher; internal/archdoc's import list shows it.
package runner
