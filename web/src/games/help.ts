/** "How to play", per game: the aim, a turn and the scoring in a few plain sentences of our
 * own, for a player who has never seen the rule sheet (the sheets are in shared/rules; the
 * server enforces them, so this only has to orient). */

import { h } from "../h";

interface Help {
  aim: string;
  turn: string[];
  scoring: string;
}

/** GIRL and The CAR Game share an engine but not their words: each in its own terms. */
const HELP: Record<string, Help> = {
  girl: {
    aim: "Win cards by winning tricks: each trick is played for one of the six Heroines.",
    turn: [
      "On your turn you turn up the top card of the centre pack. A Trio or a Girl card goes into your hand; a HEROINE card is laid face up, and everyone plays a trick for her.",
      "In a trick each player lays three cards face down (all they have, if fewer), and then all are turned over together. A Trio card counts the 1, 2 or 3 it shows beside that Heroine, a Girl card counts 4 for anyone, and the other HEROINE card of the same picture counts 5.",
      "The highest total wins the trick and keeps the Girl cards and the Trio cards that show the Heroine; everything else goes back to its owner’s hand. A tie, or nobody scoring, wins nothing.",
      "When the centre pack is used up, each in turn must lay a HEROINE from hand to be played for (it does not count for the one who lays it), or pass if they hold none.",
    ],
    scoring: "At the end, a point for every card won, less a point for every card left in hand. The higher score wins.",
  },
  car: {
    aim: "Collect cards by taking tricks, each one fought over a class of car: Racing, Sports, Record-breaking, Luxury, Touring or Vintage/Veteran.",
    turn: [
      "Your turn starts by drawing the top card of the centre pack. Keep a Trio or a Bluebird; a CAR-CLASS card goes on the table instead, and that class is raced for at once.",
      "Everyone puts down three cards face down (or all they hold, if fewer) and they are shown together. Only what counts for the class in play scores: a Trio card its 1, 2 or 3 for that class, a Bluebird 4 whatever the class, the twin CAR-CLASS card 5.",
      "The best set takes the trick: its owner keeps the Bluebirds and the Trio cards showing that class. The rest go back into their owners’ hands. On a tie, or if nobody scores, nobody takes anything.",
      "Once the centre pack is empty, players in turn put a CAR-CLASS card from hand on the table to be raced for (it scores nothing for its owner); with none, they pass.",
    ],
    scoring: "Each card taken is a point; each card still in hand at the end costs one. Most points wins.",
  },
  "british-birds": {
    aim: "Collect whole sets: five birds with the same letter.",
    turn: [
      "On your turn, either pick up one of the face-up cards in the row (a new one is turned up in its place), which ends your turn, or ask another player for a card.",
      "You may ask only for a card of a set you already hold a card of. If they have it, they must hand it over and you go on asking, or pick up from the row to finish. If they do not have it, your turn ends.",
      "An Owl is the one way to refuse: a player asked for a card they hold may play an Owl instead, and keep the card. Owls played stay out of the game. You can leave a standing order for how your Owls answer.",
      "A set of five is laid down as soon as it is complete. The game ends when every set is down.",
    ],
    scoring: "Five points a set. Over several games, the first to 50 wins.",
  },
  "history-of-england": {
    aim: "Complete reigns: each set is a monarch’s Crown card and the cards of that reign.",
    turn: [
      "On your turn you ask one player for one card. If you hold a reign’s Crown you may ask for any card of that reign; if you hold two cards of a reign you may ask for its Crown, and must show those two cards when you do.",
      "Holding neither, you may ask for anything but a Crown. A Crown once won cannot be asked for again.",
      "While your asks succeed you keep asking; when one is refused you draw from the pool and the next player asks. Asking for a Crown without the two cards to show costs you the card or cards you bluffed with.",
      "When the pool is empty every hand goes face up, and a last few rounds are played.",
    ],
    scoring: "The player holding the most cards in completed reigns wins; in a longer game each such card is a point, to 50.",
  },
  googly: {
    aim: "Win a two-innings cricket match: score more runs than the other side over both innings, or bowl them out twice for less.",
    turn: [
      "The toss winner bats or fields. Before each innings the batting captain sets the order and the fielding captain names two opening bowlers.",
      "The batter on strike turns up a batting card: 1, 2, 3, 4 or 6 runs. Odd runs change the strike. Six cards make an over.",
      "A How’s That card is an appeal: the bowler turns up a bowling card. Bowled, caught, stumped, l.b.w. or run out and the batter is out; not out, he stays; a leg bye is one run to the extras.",
      "An innings ends at ten wickets or when the captain declares. The match has 51 overs (three days of 17), and a captain may claim three overs of extra time.",
    ],
    scoring: "Most runs over the two innings each wins; with no result when time runs out it is a draw. Championship points: 12 for a win, 6 each for a tie, and a little for a first-innings lead.",
  },
};

/** The collapsible panel, or nothing for a game with no words yet. */
export function howToPlay(game: string, name: string): HTMLElement | null {
  const help = HELP[game];
  if (!help) return null;
  return h(
    "details",
    { class: "how-to-play", "data-game": game },
    h("summary", null, `How to play ${name}`),
    h("p", null, h("strong", null, "The aim: "), help.aim),
    h("h3", null, "A turn"),
    h("ul", null, help.turn.map((line) => h("li", null, line))),
    h("p", null, h("strong", null, "Scoring: "), help.scoring),
  );
}
