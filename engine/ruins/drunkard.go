package ruins

import (
	"math/big"

	"github.com/kothd/kothd/engine/pyrand"
)

// DrunkardClass is the built-in filler's class name (§5.3). It never scores.
const DrunkardClass = "Drunkard"

// Drunkard is the built-in filler played in Go. It draws from its own generator exactly
// what the Python original draws from self.random, so games with Drunkards replay the
// original's.
type Drunkard struct {
	r *pyrand.Rand
}

// NewDrunkard returns a Drunkard whose self.random is random.Random(seed).
func NewDrunkard(seed *big.Int) *Drunkard { return &Drunkard{r: pyrand.New(seed)} }

var drunkardOptions = [][]Kind{
	// room 1 / deeper, without / with treasures: 'next', ['previous'], ['take'] * 5
	{Next}, {Next, Take, Take, Take, Take, Take},
	{Next, Previous}, {Next, Previous, Take, Take, Take, Take, Take},
}

// Act is the Drunkard's get_action.
func (d *Drunkard) Act(s State) Action {
	carry := s.CarryWeight()
	if s.Stamina/MoveCost(carry) <= s.Room+1 {
		return Action{Kind: Previous}
	}
	opt := 0
	if s.Room > 1 {
		opt = 2
	}
	if len(s.Treasures) > 0 {
		opt++
	}
	choice, _ := pyrand.Choice(d.r, drunkardOptions[opt])
	if choice != Take {
		return Action{Kind: choice}
	}
	i := d.r.Below(len(s.Treasures))
	t := s.Treasures[i]
	if t.Weight+carry > Capacity {
		j, err := d.r.RandRange(len(s.Inventory))
		if err != nil { // Python's randrange(0) raises: the Drunkard dies by trap
			return Action{Kind: Invalid, Why: "ValueError: " + err.Error()}
		}
		return Action{Kind: Drop, Index: j}
	}
	extra := 0
	if len(s.Players) > 0 {
		extra = d.r.Below(5)
	}
	return Action{Kind: Take, Index: i, Bid: t.Weight + extra}
}
