package ruins

import (
	"fmt"
	"strings"

	"github.com/kothd/kothd/engine/pyrand"
)

// dN is a die roll, uniform in [1, n]: randint(1, n).
func dN(g *pyrand.Rand, n int) int {
	return 1 + g.Below(n)
}

// generateRoom draws room r's treasures with G (§2.2): the count, then per treasure
// d6, d6, d(10w), d(5r+10), d(5r+10). made counts treasures generated so far in the game.
func generateRoom(g *pyrand.Rand, r int, made *int) []Treasure {
	lo, hi := r/3+3, r/2+5
	count := lo + g.Below(hi-lo+1)
	out := make([]Treasure, 0, count)
	for range count {
		w := max(1, dN(g, 6)+dN(g, 6)-2)
		v := dN(g, 10*w)
		v += dN(g, 5*r+10)
		v += dN(g, 5*r+10)
		*made++
		out = append(out, Treasure{Name: fmt.Sprintf("Treasure #%03d", *made), Value: v, Weight: w})
	}
	return out
}

// characterName draws one adventurer's name from F (§3.2).
func characterName(f *pyrand.Rand) string {
	x := f.Random()
	parts := []string{pick(f, firstNames)}
	if x < 0.75 {
		parts = append(parts, pick(f, lastNames))
		if x < 0.15 {
			parts = append(parts, pick(f, suffixes))
		}
	} else {
		parts = append(parts, pick(f, monikers))
	}
	return strings.Join(parts, " ")
}

func pick(f *pyrand.Rand, list []string) string { return list[f.Below(len(list))] }

var firstNames = strings.Split("Eddard Rob Jon Sansa Theon Arya Brandon Richard Hodor "+
	"Jaime Cersei Tyrion Tywin Robert Joffrey Tommen Dany Samwell Marjorie Stannis Peter "+
	"Jora Bilbo Frodo Sam Legolas Gimley Gandalf Ned Albert Lyn Eliwood Hector Guy "+
	"Kent Dorcas Fiora Ike Marth Roy Lucina Corrin Robin Chrom Anna Ramsey Alexander "+
	"James John Jacob Deborah Rebecca Willard Zeus Athena Apollo Diana Juno Hera Icarus "+
	"Samson Chell Gordon Samus Link Edward Alphonse Winry Fox Mario Luigi Ash Brock "+
	"Misty Winston Torbjorn Angela Kirby Masahiro Shigeru Lucy Freddie Patrick Aerith "+
	"Cloud Tifa Barret Red Blue Gary Chara Usagi Ajna Morgan Steve Harry Jack Homer "+
	"Bart Lisa Elsa Ana Emma Regina Mary Margaret Pit Brad Sonja Ryu Ken Olivia Major "+
	"Ron Quinn Elmer Justin", " ")

var lastNames = strings.Split("Stark Barathean Lannister Snow Tarley Grayjoy Bolton Stormborn "+
	"Targaryen Balish Mormant Baggins Churchill Freeman Aran Elric Rockbell McCloud "+
	"Lombardi Smith Lindholm Ketchum Sakurai Miyamoto Heartfilia Mercury Oak Elm Birch "+
	"Tsukino Strife Lockheart Jackson Potter Sparrow Simpson Flanders Young Einstein Swan "+
	"Parker Harris Moore Barnes Finley Pitt Ridley", " ")

var suffixes = strings.Split("I II III IV V VI VII VIII IX X XIII Jr. Sr. PhD MD DDS", " ")

var monikers = []string{"the Great", "the Smuggler", "the Cat Burglar", "the Insomniac",
	"the Forgettable", "the Orphan", "the Wizard", "the Lazy", "the Untamed", "the Well-armed",
	"the Pirate", "the Unimportant", "the Hero", "the Unkempt", "the Distasteful",
	"the Dog Whisperer", "the Peasant", "the Impaler", "of Arendale", "the Simpleton"}

// traps are the death texts drawn from F for deaths by trap (§2.8); they shape only the log.
var traps = []string{"was sliced in half by a swinging blade trap.", "fell into a pit of spikes.",
	"was crushed by a boulder.", "was eaten by a wild shriekbat.", "was shot by a crossbow trap.",
	"fell into a bottomless pit.", "was devoured by a mimic.", "was incinerated by a fire trap.",
	"got sucked into a dimensional vortex.", "mysteriously vanished.",
	"was flung into a pool of acid.", "was stung by a giant bee.",
	"was absorbed by a gelatinous monster.", "was bitten by a swarm of venomous snakes.",
	"was decapitated by a sword trap"}
