//! `expert`'s search, written once for every hidden-hand game: determinized Monte Carlo
//! search with voting (the "determinization and vote" form of information-set MCTS).
//!
//! The seat cannot see the other hands (nor the order of the pack), so it cannot search the
//! true game. Instead, many times over, it *determinizes*: it deals the cards it cannot see at
//! random into the places it cannot see, keeping every card it has seen where it saw it and
//! every count it can see (hand sizes, the pack) as it is, and respecting what the log has told
//! it (a player who passed holds no HEROINE, a player who said "not held" lacks the card). On
//! each such sample it plays every candidate move out to the end of the game, again and again,
//! with the game's own `decide` and `evolve` and a quick playout policy for every seat, each
//! round giving every candidate the same luck (common random numbers). Each sample votes for
//! the candidate with the best total; the move with most votes is played (ties go to the
//! higher total over all samples). The search is one level deep on each sample (the flat form
//! of determinized Monte Carlo search): the hidden cards are what a seat most lacks, and the
//! playouts, not a tree, judge what follows.
//!
//! The search is counted ([`Budget`]): its move depends on the seed alone, unless it is told
//! its time is up ([`TimeUp`], asked before every playout), when the samples searched so far
//! vote on the whole rounds they played; with none, the game's best guess (`steady`'s move) is
//! played.

use crate::bot_kit::{below, Budget, Rng, TimeUp};
use crate::chance::{Chance, Seed};
use crate::game::{Game, Seat};

use rand_core::{RngCore, SeedableRng};

/// What a game supplies to be searched, besides the samples and the moves to compare: how to
/// play on quickly and what an ending is worth.
pub(crate) trait Playouts {
    /// The game.
    type G: Game<Action: PartialEq>;

    /// What the playout policy remembers through one playout: the public record a policy
    /// that plays as `steady` does needs (where cards were seen to go, who said "not held"),
    /// kept up as the playout's events happen. `()` for a policy that reads the state alone.
    type Memo: Clone + Default;

    /// A quick move for `seat` in a sampled state, during a playout.
    fn playout_move(
        state: &<Self::G as Game>::State,
        memo: &Self::Memo,
        seat: Seat,
        rng: &mut Rng,
    ) -> Option<<Self::G as Game>::Action>;

    /// The most moves a playout plays before it is scored as it stands (`reward` then judges
    /// an unfinished game): by default the whole game.
    const PLAYOUT_MOVES: usize = PLAYOUT_LIMIT;

    /// Whether `state`'s result is already settled, though play goes on: the playout stops
    /// there and `reward` judges it. By default never (a finished game ends a playout anyway).
    fn settled(_state: &<Self::G as Game>::State) -> bool {
        false
    }

    /// Notes a playout's `event` in `memo`.
    fn remember(_memo: &mut Self::Memo, _event: &<Self::G as Game>::Event) {}

    /// What the finished (or abandoned) `state` is worth to `seat`, from 0 (lost) to 1 (won).
    fn reward(state: &<Self::G as Game>::State, seat: Seat) -> f64;

    /// The most moves all of one search's playouts may play between them: a counted bound on
    /// the time a move takes, whatever the game's state (a playout from a long, slow position
    /// costs far more than the budget's count of playouts suggests). Once it is reached, the
    /// samples searched so far vote.
    const MOVE_CAP: usize;
}

/// Moves after which a playout is abandoned and scored as it stands: far beyond any game's
/// length, a guard against a policy that cannot finish.
const PLAYOUT_LIMIT: usize = 5_000;

/// The candidate (among `candidates`, the moves worth comparing at the root, complete and
/// legal for `seat`, the game's best guess first; a move listed twice counts once) the search chooses for `seat`, or `None` when there is nothing to
/// compare (no candidate, or no sample could be dealt). `determinize` gives a full
/// state consistent with everything the seat has seen, the unseen cards dealt at random, or
/// `None` if the seat's observations cannot be matched.
pub(crate) fn search<S: Playouts>(
    mut determinize: impl FnMut(&mut Rng) -> Option<<S::G as Game>::State>,
    candidates: &[<S::G as Game>::Action],
    seat: Seat,
    budget: Budget,
    time_up: TimeUp<'_>,
    rng: &mut Rng,
) -> Option<<S::G as Game>::Action> {
    search_remembering::<S>(
        |rng| determinize(rng).map(|state| (state, S::Memo::default())),
        candidates,
        seat,
        budget,
        time_up,
        rng,
    )
}

/// [`search`], each sample dealt with the memo its playouts start from (what the table has
/// shown everyone so far, for a playout policy that remembers it).
pub(crate) fn search_remembering<S: Playouts>(
    mut determinize: impl FnMut(&mut Rng) -> Option<(<S::G as Game>::State, S::Memo)>,
    candidates: &[<S::G as Game>::Action],
    seat: Seat,
    budget: Budget,
    time_up: TimeUp<'_>,
    rng: &mut Rng,
) -> Option<<S::G as Game>::Action> {
    // A move listed twice would be searched twice and split its votes.
    let mut distinct: Vec<<S::G as Game>::Action> = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        if !distinct.contains(candidate) {
            distinct.push(candidate.clone());
        }
    }
    chosen::<S>(&mut determinize, &distinct, seat, budget, time_up, rng)
        .and_then(|i| distinct.get(i).cloned())
}

fn chosen<S: Playouts>(
    determinize: &mut impl FnMut(&mut Rng) -> Option<(<S::G as Game>::State, S::Memo)>,
    candidates: &[<S::G as Game>::Action],
    seat: Seat,
    budget: Budget,
    time_up: TimeUp<'_>,
    rng: &mut Rng,
) -> Option<usize> {
    match candidates.len() {
        0 => return None,
        1 => return Some(0),
        _ => {}
    }
    let n = candidates.len();
    let mut votes = vec![0usize; n];
    let mut totals = vec![0.0f64; n];
    let mut voted = 0;
    let mut moves = 0usize;
    let mut stopped = false;
    for _ in 0..budget.determinizations.max(1) {
        if moves >= S::MOVE_CAP || stopped {
            break;
        }
        let Some((state, memo)) = determinize(rng) else {
            // A sample that could not be dealt took time too.
            stopped = time_up.is_up();
            continue;
        };
        // Common random numbers: each round plays every candidate on the same sample with the
        // same playout seed, so the candidates are compared on equal luck and the difference
        // between them is not lost in the noise of whole games.
        let mut sum = vec![0.0f64; n];
        let mut rounds_played = 0;
        let rounds = budget.playouts.div_ceil(n).max(1);
        for _ in 0..rounds {
            if moves >= S::MOVE_CAP {
                break;
            }
            let luck = rng.next_u64();
            let mut round = vec![0.0f64; n];
            for (arm, candidate) in candidates.iter().enumerate() {
                // Asked before every playout, so that the time is overrun by one at most.
                if time_up.is_up() {
                    stopped = true;
                    break;
                }
                let mut playout_rng = Rng::seed_from_u64(luck);
                let (value, played) =
                    playout::<S>(&state, &memo, seat, candidate, &mut playout_rng);
                round[arm] = value;
                moves += played;
            }
            if stopped {
                // A round cut short gave the candidates unequal luck: it does not count.
                break;
            }
            for (total, value) in sum.iter_mut().zip(&round) {
                *total += value;
            }
            rounds_played += 1;
        }
        if rounds_played == 0 {
            continue;
        }
        voted += 1;
        let best = (0..n).max_by(|a, b| sum[*a].total_cmp(&sum[*b]).then(b.cmp(a)));
        if let Some(best) = best {
            votes[best] += 1;
        }
        for i in 0..n {
            totals[i] += sum[i];
        }
    }
    if voted == 0 {
        // Nothing was searched in time: the caller plays its best guess without a search.
        return None;
    }
    (0..n).max_by(|a, b| {
        votes[*a]
            .cmp(&votes[*b])
            .then(totals[*a].total_cmp(&totals[*b]))
            // Equal on both: the earlier candidate (the game lists its best guess first).
            .then(b.cmp(a))
    })
}

/// Plays `first` for `seat` in `state`, then the rest of the game by the playout policy, and
/// scores the end for `seat`, with the number of moves played. A move the sampled state
/// refuses scores nothing.
fn playout<S: Playouts>(
    state: &<S::G as Game>::State,
    memo: &S::Memo,
    seat: Seat,
    first: &<S::G as Game>::Action,
    rng: &mut Rng,
) -> (f64, usize) {
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let seed = Seed(seed);
    let mut seq = 1u64;
    let Ok(events) = crate::engine::decide::<S::G>(state, seat, first, &mut Chance::new(seed, seq))
    else {
        return (0.0, 1);
    };
    let mut state = state.clone();
    let mut memo = memo.clone();
    let mut played = 1;
    for event in &events {
        seq += 1;
        S::remember(&mut memo, event);
        state = <S::G as Game>::evolve(state, event);
    }
    for _ in 0..S::PLAYOUT_MOVES.min(PLAYOUT_LIMIT) {
        played += 1;
        if <S::G as Game>::outcome(&state).is_some() || S::settled(&state) {
            break;
        }
        let to_act = <S::G as Game>::to_act(&state);
        if to_act.is_empty() {
            break;
        }
        let mover = to_act[below(rng, to_act.len())];
        let Some(action) = S::playout_move(&state, &memo, mover, rng) else {
            break;
        };
        let Ok(events) =
            <S::G as Game>::decide(&state, mover, &action, &mut Chance::new(seed, seq))
        else {
            break;
        };
        if events.is_empty() {
            break;
        }
        for event in &events {
            seq += 1;
            S::remember(&mut memo, event);
            state = <S::G as Game>::evolve(state, event);
        }
    }
    (S::reward(&state, seat), played)
}

/// A share of first place: 1 alone at the top, `1/k` shared among `k`, 0 otherwise, weighed
/// half and half with the margin over the best other seat (`scores` spread over `spread`),
/// so that a search can tell a near miss from a rout: one decision rarely turns a whole game,
/// but it moves the margin.
pub(crate) fn share_of_first(scores: &[f64], seat: Seat, spread: f64) -> f64 {
    let Some(mine) = scores.get(seat.index()).copied() else {
        return 0.0;
    };
    let best = scores.iter().copied().fold(f64::MIN, f64::max);
    let others = scores
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != seat.index())
        .map(|(_, s)| *s)
        .fold(f64::MIN, f64::max);
    let tied = scores.iter().filter(|s| **s == best).count().max(1);
    // At most a handful of seats.
    #[allow(clippy::cast_precision_loss)]
    let win = if mine == best { 1.0 / tied as f64 } else { 0.0 };
    let margin = ((mine - others) / spread.max(1.0)).clamp(-1.0, 1.0);
    0.5 * win + 0.25 * (margin + 1.0)
}
