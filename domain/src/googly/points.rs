//! The County Championship points law: what each side of a finished match scores. Used by the
//! score-sheet (which prints the points) and by the statistics (which table them).

use super::{MatchResult, State};

/// Points for a win.
pub const WIN_POINTS: u16 = 12;
/// Points to each side for a tie.
pub const TIE_POINTS: u16 = 6;
/// Points for a first-innings lead in a match lost or drawn.
pub const FIRST_INNINGS_LEAD_POINTS: u16 = 4;
/// Points to each side for a tie on the first innings in a match lost or drawn.
pub const FIRST_INNINGS_TIE_POINTS: u16 = 2;

/// The first-innings totals of both sides, when both first innings are complete.
pub fn first_innings(state: &State) -> Option<[u16; 2]> {
    match state.innings() {
        [a, b, ..] if a.closed && b.closed => {
            let mut totals = [0u16; 2];
            totals[usize::from(a.batting.min(1))] = a.runs;
            totals[usize::from(b.batting.min(1))] = b.runs;
            Some(totals)
        }
        _ => None,
    }
}

/// County Championship points for each side of a finished match: 12 for a win, 6 each for a
/// tie, 4 for a first-innings lead in a match lost or drawn, and 2 each for a tie on the
/// first innings in a match drawn or lost. Nothing while the match is in progress.
pub fn championship_points(state: &State) -> [u16; 2] {
    match state.result() {
        Some(result) => points_for(state, result),
        None => [0, 0],
    }
}

/// County Championship points for each side were the match to end now with `result` (a
/// conceded match is won by the other side: see `docs/rules/googly.md`).
pub fn points_for(state: &State, result: MatchResult) -> [u16; 2] {
    let first = first_innings(state);
    let first_innings_points = |side: usize| match first {
        Some(t) if t[side] > t[1 - side] => FIRST_INNINGS_LEAD_POINTS,
        Some(t) if t[side] == t[1 - side] => FIRST_INNINGS_TIE_POINTS,
        _ => 0,
    };
    match result {
        MatchResult::Won { side, .. } => {
            let winner = usize::from(side.min(1));
            let mut points = [0u16; 2];
            points[winner] = WIN_POINTS;
            points[1 - winner] = first_innings_points(1 - winner);
            points
        }
        MatchResult::Tie => [TIE_POINTS, TIE_POINTS],
        MatchResult::Draw => [first_innings_points(0), first_innings_points(1)],
    }
}
