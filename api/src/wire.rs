//! The wire's unions over games: the types a DTO names where its field holds one game's part
//! or another's (an action, an event's data), and the names of each game's components. They
//! sit below both the DTOs and the document builder (`openapi`), so the DTOs need nothing of
//! the document's machinery to say what their fields are.

use std::borrow::Cow;

use parlour_domain::{catalog, Description, GameSchemas};
use serde_json::Value;
use utoipa::openapi::schema::{AnyOfBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

/// The parts of a game the domain publishes a JSON Schema of: each is one component per game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The `options` of a create body.
    Options,
    /// A body of `POST /v1/games/{id}/actions`.
    Action,
    /// One entry of a view's `legal_actions`.
    LegalAction,
    /// The game's part of one entry of a view's `seats`.
    SeatView,
    /// A view's `public`.
    PublicView,
    /// The game's part of a view's `you`.
    PrivateView,
    /// A finished game's `result`.
    Outcome,
    /// One event with its `type`, as a finished game's log holds it.
    Event,
    /// An event whose shape differs while the game is in progress, as a viewer sees it then.
    SeenEvent,
}

impl Part {
    /// Every part, in the order the components are written.
    pub const ALL: [Part; 9] = [
        Part::Options,
        Part::Action,
        Part::LegalAction,
        Part::SeatView,
        Part::PublicView,
        Part::PrivateView,
        Part::Outcome,
        Part::Event,
        Part::SeenEvent,
    ];

    /// What the part's components are called after the game's name.
    pub fn suffix(self) -> &'static str {
        match self {
            Part::Options => "Options",
            Part::Action => "Action",
            Part::LegalAction => "LegalAction",
            Part::SeatView => "SeatView",
            Part::PublicView => "PublicView",
            Part::PrivateView => "PrivateView",
            Part::Outcome => "Outcome",
            Part::Event => "Event",
            Part::SeenEvent => "SeenEvent",
        }
    }

    /// The schema the domain publishes of this part of a game.
    pub fn published(self, schemas: &GameSchemas) -> &Value {
        match self {
            Part::Options => &schemas.options,
            Part::Action => &schemas.action,
            Part::LegalAction => &schemas.legal_action,
            Part::SeatView => &schemas.view.seat,
            Part::PublicView => &schemas.view.public,
            Part::PrivateView => &schemas.view.private,
            Part::Outcome => &schemas.outcome,
            Part::Event => &schemas.event,
            Part::SeenEvent => &schemas.seen_event,
        }
    }
}

/// A game's name in component names: `girl` → `Girl`, `british-birds` → `BritishBirds`.
pub fn type_prefix(game: &str) -> String {
    game.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut letters = word.chars();
            match letters.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + letters.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The component holding one part of one game, e.g. `GirlPublicView`.
pub fn part_component(game: &str, part: Part) -> String {
    format!("{}{}", type_prefix(game), part.suffix())
}

/// The component of a game's event data: an event without its `type`, e.g. `GirlEventData`.
pub fn event_data_component(game: &str) -> String {
    format!("{}EventData", type_prefix(game))
}

/// Any action of any game: the body of `POST /v1/games/{id}/actions`, and a finished game's
/// logged commands. A union without a discriminator (an action does not say its game), so
/// `anyOf`: two games may share a move, e.g. GIRL's and The CAR Game's `turn_up`.
pub struct AnyAction;

impl ToSchema for AnyAction {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Action")
    }
}

impl PartialSchema for AnyAction {
    fn schema() -> RefOr<Schema> {
        described_games()
            .iter()
            .fold(AnyOfBuilder::new(), |union, game| {
                union.item(reference(&part_component(game.id, Part::Action)))
            })
            .description(Some(
                "One action of the game played (see the game's `…Action` component).",
            ))
            .into()
    }
}

/// The `data` of any whole event: a game's event without its `type`, or a table event's.
pub struct EventData;

impl ToSchema for EventData {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("EventData")
    }
}

impl PartialSchema for EventData {
    fn schema() -> RefOr<Schema> {
        described_games()
            .iter()
            .fold(AnyOfBuilder::new(), |union, game| {
                union.item(reference(&event_data_component(game.id)))
            })
            .item(reference("TableEventData"))
            .description(Some(
                "A whole event's data: one of a game's events (its `…EventData` component; the \
                 event's `type` is beside `data`), or a table event's (`table.…` types).",
            ))
            .into()
    }
}

/// Every table event type the log may hold, with the component of its `data` (`dto`'s
/// `TableEventData` alternatives). `tests/api/contract.rs` checks it against the table events
/// the domain records.
pub const TABLE_EVENTS: [(&str, &str); 19] = [
    ("table.note", "NoteData"),
    ("table.resigned", "SeatData"),
    ("table.abandoned", "AbandonedData"),
    ("table.hosted", "HostedData"),
    ("table.listed", "ListedData"),
    ("table.seat_offered", "SeatOfferedData"),
    ("table.offer_withdrawn", "SeatData"),
    ("table.seated", "SeatedData"),
    ("table.aborted", "AbortedData"),
    ("table.clock_set", "ClockSetData"),
    ("table.reminded", "RemindedData"),
    ("table.timed_out", "TimedOutData"),
    ("table.vacation_began", "VacationBeganData"),
    ("table.vacation_ended", "SeatData"),
    ("table.bot_seated", "BotSeatedData"),
    ("table.bot_left", "SeatData"),
    ("table.match_deal", "MatchDealData"),
    ("table.test_clock", "AbortedData"),
    ("table.test_clock_advanced", "TestClockAdvancedData"),
];

/// Every game of the catalogue, described.
pub fn described_games() -> Vec<Description> {
    catalog::engines()
        .into_iter()
        .map(|engine| engine.describe())
        .collect()
}

/// A reference to the component `component`.
pub fn reference(component: &str) -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(component))
}
