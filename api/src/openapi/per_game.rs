//! Each game's own types in the document: the parts the domain publishes JSON Schemas of, the
//! per-game variants of the DTOs that say which game they are of, and the unions over games.

use std::collections::BTreeMap;

use parlour_domain::{catalog, Description};
use serde_json::{Map, Value};
use utoipa::openapi::schema::{
    AllOfBuilder, AnyOfBuilder, ArrayBuilder, Discriminator, Object, ObjectBuilder, OneOfBuilder,
    Schema, Type,
};
use utoipa::openapi::RefOr;
use utoipa::Modify;

use super::{described_games, null, reference, string};
use crate::service::text::MAX_STRING_CHARS;
pub use crate::wire::{event_data_component, part_component, type_prefix, Part, TABLE_EVENTS};

/// The per-game variants of the DTOs that say which game they are of, with their unions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// `GameView`: a game as one viewer sees it.
    View,
    /// `NewGame`: the body of `POST /v1/games`.
    NewGame,
    /// `CreatedGame`: the answer to it.
    CreatedGame,
    /// `CreationRecord`: what a game's hash chain starts from.
    CreationRecord,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 4] = [
        Variant::View,
        Variant::NewGame,
        Variant::CreatedGame,
        Variant::CreationRecord,
    ];

    /// The union's component, the one the operations refer to.
    pub fn union(self) -> &'static str {
        match self {
            Variant::View => "GameView",
            Variant::NewGame => "NewGame",
            Variant::CreatedGame => "CreatedGame",
            Variant::CreationRecord => "CreationRecord",
        }
    }

    /// The component of one game's variant, e.g. `GirlView`, `GirlNewGame`.
    pub fn component(self, game: &str) -> String {
        let suffix = match self {
            Variant::View => "View",
            other => other.union(),
        };
        format!("{}{suffix}", type_prefix(game))
    }
}

/// Puts `schema` in place of property `name`, keeping the property's description.
fn replace_property(object: &mut Object, name: &str, schema: RefOr<Schema>) {
    let description = object.properties.get(name).and_then(description_of);
    let mut schema = schema;
    if let Some(description) = description {
        set_description(&mut schema, description);
    }
    object.properties.insert(name.to_string(), schema);
}

fn description_of(schema: &RefOr<Schema>) -> Option<String> {
    match schema {
        RefOr::Ref(reference) => {
            Some(reference.description.clone()).filter(|text| !text.is_empty())
        }
        RefOr::T(Schema::Object(object)) => object.description.clone(),
        RefOr::T(Schema::Array(array)) => array.description.clone(),
        RefOr::T(Schema::OneOf(one_of)) => one_of.description.clone(),
        RefOr::T(Schema::AllOf(all_of)) => all_of.description.clone(),
        RefOr::T(Schema::AnyOf(any_of)) => any_of.description.clone(),
        RefOr::T(_) => None,
    }
}

fn set_description(schema: &mut RefOr<Schema>, description: String) {
    match schema {
        RefOr::Ref(reference) => reference.description = description,
        RefOr::T(Schema::Object(object)) => object.description = Some(description),
        RefOr::T(Schema::Array(array)) => array.description = Some(description),
        RefOr::T(Schema::OneOf(one_of)) => one_of.description = Some(description),
        RefOr::T(Schema::AllOf(all_of)) => all_of.description = Some(description),
        RefOr::T(Schema::AnyOf(any_of)) => any_of.description = Some(description),
        RefOr::T(_) => {}
    }
}

/// `game`'s id as the only value a string may take: what makes the variants exclusive, and
/// the discriminator's property.
fn game_id(game: &Description) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some([game.id]))
        .into()
}

/// `item`, or null.
fn nullable(item: RefOr<Schema>) -> RefOr<Schema> {
    OneOfBuilder::new().item(item).item(null()).into()
}

/// A list of `items` as long as the game has players.
fn per_player(game: &Description, items: RefOr<Schema>) -> RefOr<Schema> {
    ArrayBuilder::new()
        .items(items)
        .min_items(Some(game.min_players))
        .max_items(Some(game.max_players))
        .into()
}

/// One game's variant of a DTO: the DTO with the generic parts replaced by the game's own.
fn variant_of(variant: Variant, template: &Object, game: &Description) -> Object {
    let id = game.id;
    let part = |part: Part| reference(&part_component(id, part));
    let mut object = template.clone();
    object.title = Some(match variant {
        Variant::View => format!("{} view", game.name),
        Variant::NewGame => format!("A new game of {}", game.name),
        Variant::CreatedGame => format!("A created game of {}", game.name),
        Variant::CreationRecord => format!("The creation record of a game of {}", game.name),
    });
    replace_property(&mut object, "game", game_id(game));
    match variant {
        Variant::View => {
            replace_property(&mut object, "options", part(Part::Options));
            replace_property(
                &mut object,
                "seats",
                per_player(
                    game,
                    AllOfBuilder::new()
                        .item(reference("SeatHeader"))
                        .item(part(Part::SeatView))
                        .into(),
                ),
            );
            replace_property(&mut object, "public", part(Part::PublicView));
            replace_property(
                &mut object,
                "you",
                nullable(
                    AllOfBuilder::new()
                        .item(reference("YouHeader"))
                        .item(part(Part::PrivateView))
                        .into(),
                ),
            );
            replace_property(
                &mut object,
                "revealed",
                nullable(per_player(game, part(Part::PrivateView))),
            );
            replace_property(
                &mut object,
                "legal_actions",
                ArrayBuilder::new().items(part(Part::LegalAction)).into(),
            );
            replace_property(
                &mut object,
                "result",
                AnyOfBuilder::new()
                    .item(part(Part::Outcome))
                    .item(reference("TableResult"))
                    .item(null())
                    .into(),
            );
        }
        Variant::NewGame => {
            replace_property(&mut object, "options", nullable(part(Part::Options)));
            replace_property(
                &mut object,
                "players",
                per_player(game, reference("NewPlayer")),
            );
        }
        Variant::CreatedGame => {
            replace_property(&mut object, "options", part(Part::Options));
            replace_property(
                &mut object,
                "seats",
                per_player(game, reference("CreatedSeat")),
            );
        }
        Variant::CreationRecord => {
            replace_property(&mut object, "options", part(Part::Options));
            let player = ObjectBuilder::new()
                .schema_type(Type::Object)
                .property("name", string())
                .required("name")
                .into();
            replace_property(&mut object, "players", per_player(game, player));
        }
    }
    object
}

/// Each DTO that says which game it is of becomes a union of one variant per game, told apart
/// by `game`, so that a generated client types a GIRL view as a GIRL view.
pub(super) struct GameVariants;

impl Modify for GameVariants {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        let games = described_games();
        for variant in Variant::ALL {
            let Some(RefOr::T(Schema::Object(template))) =
                components.schemas.get(variant.union()).cloned()
            else {
                continue;
            };
            let mut discriminator = Discriminator::new("game");
            let mut union = OneOfBuilder::new();
            for game in &games {
                let name = variant.component(game.id);
                components.schemas.insert(
                    name.clone(),
                    RefOr::T(Schema::Object(variant_of(variant, &template, game))),
                );
                discriminator
                    .mapping
                    .insert(game.id.to_string(), format!("#/components/schemas/{name}"));
                union = union.item(reference(&name));
            }
            let union = union
                .description(template.description.clone())
                .discriminator(Some(discriminator));
            components
                .schemas
                .insert(variant.union().to_string(), union.into());
        }
    }
}

/// The document with every game's published JSON Schemas among its components: each part as
/// `<Game><Part>`, except the event, whose variants become `<Game>EventData` (the log gives an
/// event's `type` beside its data).
pub(super) fn with_published_schemas(mut document: Value) -> Value {
    let Some(components) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return document;
    };
    let games = described_games();
    // Names a definition must not take: the per-game components made from the parts.
    let reserved: Vec<String> = games
        .iter()
        .flat_map(|game| {
            let parts = Part::ALL.map(|part| part_component(game.id, part));
            let variants = Variant::ALL.map(|variant| variant.component(game.id));
            parts
                .into_iter()
                .chain(variants)
                .chain([event_data_component(game.id)])
        })
        .collect();
    // Each game's event types, and those of them a viewer may see otherwise during play.
    let mut logged: Vec<(&'static str, Vec<String>, Vec<String>)> = Vec::new();
    for engine in catalog::engines() {
        let id = engine.describe().id;
        let published = engine.schemas();
        let mut whole_tags = Vec::new();
        let mut seen_tags = Vec::new();
        for part in Part::ALL {
            let schema = match part {
                Part::Options | Part::Action => gated(part.published(&published)),
                _ => part.published(&published).clone(),
            };
            let schema = add_definitions(components, &reserved, id, part, &schema);
            match part {
                Part::Event => {
                    let mut union = Vec::new();
                    for (tag, data) in tagged_variants(&schema) {
                        let name = event_data_variant(id, &tag);
                        components.insert(name.clone(), data);
                        union.push(
                            serde_json::json!({"$ref": format!("#/components/schemas/{name}")}),
                        );
                        whole_tags.push(tag);
                    }
                    components.insert(
                        event_data_component(id),
                        serde_json::json!({
                            "description": "The data of one of the game's events: the event \
                                            without its `type`, which the log gives beside it.",
                            "anyOf": union,
                        }),
                    );
                }
                Part::SeenEvent => {
                    for (tag, data) in tagged_variants(&schema) {
                        components.insert(seen_data_variant(id, &tag), data);
                        seen_tags.push(tag);
                    }
                }
                Part::Action => {
                    components.insert(part_component(id, part), closed_variants(schema));
                }
                _ => {
                    components.insert(part_component(id, part), schema);
                }
            }
        }
        logged.push((id, whole_tags, seen_tags));
    }
    with_tagged_events(components, &logged);
    document
}

/// The component of the data of one type of a game's events, whole: `GirlEventDataLay`.
fn event_data_variant(game: &str, tag: &str) -> String {
    format!("{}EventData{}", type_prefix(game), type_prefix(tag))
}

/// The component of the data of one type of a game's events as a viewer sees it while the
/// game is in progress, when that differs: `GirlSeenEventDataLay`.
fn seen_data_variant(game: &str, tag: &str) -> String {
    format!("{}SeenEventData{}", type_prefix(game), type_prefix(tag))
}

/// The component of one type of a game's logged events, `type` and `data` together:
/// `GirlLayEvent`.
fn logged_variant(game: &str, tag: &str) -> String {
    format!("{}{}Event", type_prefix(game), type_prefix(tag))
}

/// The component of one type of table event as the log shows it: `TableResignedEvent`.
fn table_variant(kind: &str) -> String {
    format!("{}Event", type_prefix(kind))
}

/// The union of a game's logged events, told apart by `type`: `GirlLoggedEvent`.
pub fn logged_union(game: &str) -> String {
    format!("{}LoggedEvent", type_prefix(game))
}

/// A page of a game's log: `GirlEventPage`.
pub fn event_page(game: &str) -> String {
    format!("{}EventPage", type_prefix(game))
}

fn schema_ref(component: &str) -> Value {
    serde_json::json!({"$ref": format!("#/components/schemas/{component}")})
}

/// Every event of the log as a tagged union, so that `type` narrows `data` in a typed
/// client: one component per game and event type (`GirlLayEvent`: `type` is `"lay"`, `data`
/// a lay, whole or as seen during play), one per table event type (`TableResignedEvent`), a
/// union of them per game told apart by `type` (`GirlLoggedEvent`), and a page of the log per
/// game told apart by `game` (`GirlEventPage`), `EventPage` being the union of the pages.
fn with_tagged_events(
    components: &mut Map<String, Value>,
    logged: &[(&'static str, Vec<String>, Vec<String>)],
) {
    let (Some(Value::Object(template)), Some(Value::Object(page))) = (
        components.get("GameEvent").cloned(),
        components.get("EventPage").cloned(),
    ) else {
        return;
    };
    // One entry of one type: the template's envelope, with `type` pinned, `data` the type's
    // own, and `command` the game's action (a table event has none).
    let variant = |description: String,
                   tag: &str,
                   data: (Value, &str),
                   command: Option<Value>|
     -> Value {
        let mut object = template.clone();
        object.remove("title");
        object.insert("description".into(), Value::String(description));
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties.insert(
                "type".into(),
                serde_json::json!({"type": "string", "enum": [tag], "description": "The entry's type."}),
            );
            let (mut data, said) = data;
            if let Value::Object(map) = &mut data {
                map.insert("description".into(), Value::String(said.to_string()));
            }
            properties.insert("data".into(), data);
            match command {
                Some(mut command) => {
                    if let Value::Object(map) = &mut command {
                        map.insert(
                            "description".into(),
                            "The action that produced this batch (shown once the game is over)."
                                .into(),
                        );
                    }
                    properties.insert("command".into(), command);
                }
                None => {
                    properties.remove("command");
                }
            }
        }
        Value::Object(object)
    };
    let mut table_mapping = Map::new();
    for (kind, data) in TABLE_EVENTS {
        let name = table_variant(kind);
        let event = variant(
            format!("A `{kind}` entry of a game's log: a fact about the table, never hidden."),
            kind,
            (schema_ref(data), "What the table event says."),
            None,
        );
        components.insert(name.clone(), event);
        table_mapping.insert(
            kind.to_string(),
            Value::String(format!("#/components/schemas/{name}")),
        );
    }
    let mut pages = Vec::new();
    let mut page_mapping = Map::new();
    for (game, whole, seen) in logged {
        let mut mapping = Map::new();
        for tag in whole {
            let data = if seen.contains(tag) {
                (
                    serde_json::json!({"anyOf": [
                        schema_ref(&event_data_variant(game, tag)),
                        schema_ref(&seen_data_variant(game, tag)),
                    ]}),
                    "The event: whole once the game is over, and while it is in progress as \
                     the viewer may see it, with the cards they could not see at the table \
                     taken out (the game's rules document says how).",
                )
            } else {
                (
                    schema_ref(&event_data_variant(game, tag)),
                    "The event (everyone sees it whole).",
                )
            };
            let name = logged_variant(game, tag);
            let command = schema_ref(&part_component(game, Part::Action));
            let description =
                format!("A `{tag}` event of a game of `{game}`, as its log shows it.");
            components.insert(name.clone(), variant(description, tag, data, Some(command)));
            mapping.insert(
                tag.clone(),
                Value::String(format!("#/components/schemas/{name}")),
            );
        }
        mapping.extend(table_mapping.clone());
        let union = logged_union(game);
        components.insert(
            union.clone(),
            serde_json::json!({
                "description": format!(
                    "One entry of the log of a game of `{game}`: one of its events, or a table \
                     event (`table.…`); `type` says which, and so what `data` holds."
                ),
                "oneOf": mapping.values().map(|target| serde_json::json!({"$ref": target})).collect::<Vec<_>>(),
                "discriminator": {"propertyName": "type", "mapping": mapping},
            }),
        );
        let mut one_page = page.clone();
        one_page.remove("title");
        if let Some(Value::Object(properties)) = one_page.get_mut("properties") {
            let description = properties
                .get("game")
                .and_then(|game| game.get("description"))
                .cloned()
                .unwrap_or(Value::Null);
            properties.insert(
                "game".into(),
                serde_json::json!({"type": "string", "enum": [game], "description": description}),
            );
            let description = properties
                .get("events")
                .and_then(|events| events.get("description"))
                .cloned()
                .unwrap_or(Value::Null);
            properties.insert(
                "events".into(),
                serde_json::json!({"type": "array", "items": schema_ref(&union), "description": description}),
            );
        }
        let name = event_page(game);
        components.insert(name.clone(), Value::Object(one_page));
        pages.push(schema_ref(&name));
        page_mapping.insert(
            game.to_string(),
            Value::String(format!("#/components/schemas/{name}")),
        );
    }
    // The envelope served only as the variants' template: every entry is a game's now.
    components.remove("GameEvent");
    components.insert(
        "EventPage".into(),
        serde_json::json!({
            "description": page.get("description").cloned().unwrap_or(Value::Null),
            "oneOf": pages,
            "discriminator": {"propertyName": "game", "mapping": page_mapping},
        }),
    );
}

/// What `service::text` lets through in a string of options or an action, as a pattern: no
/// control character.
const GATED_TEXT: &str = r"^[^\x00-\x1F\x7F-\x9F]*$";

/// `schema` (options or an action, and its definitions) saying what the server's text gate
/// says of every string and field name in such a body before a game reads it: at most
/// `MAX_STRING_CHARS` characters, no control character. A string the game already pins down
/// (an enum, a constant, its own pattern) is left as the game gives it.
fn gated(schema: &Value) -> Value {
    let mut schema = schema.clone();
    gate(&mut schema);
    schema
}

fn gate(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            let is_string = match object.get("type") {
                Some(Value::String(kind)) => kind == "string",
                Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "string"),
                _ => false,
            };
            let pinned = ["enum", "const", "pattern"]
                .iter()
                .any(|key| object.contains_key(*key));
            if is_string && !pinned {
                object.insert("pattern".into(), Value::String(GATED_TEXT.into()));
                let longest = object
                    .get("maxLength")
                    .and_then(Value::as_u64)
                    .map_or(MAX_STRING_CHARS as u64, |max| {
                        max.min(MAX_STRING_CHARS as u64)
                    });
                object.insert("maxLength".into(), Value::from(longest));
            }
            if matches!(object.get("additionalProperties"), Some(Value::Object(_))) {
                object.entry("propertyNames").or_insert_with(
                    || serde_json::json!({"pattern": GATED_TEXT, "maxLength": MAX_STRING_CHARS}),
                );
            }
            object.values_mut().for_each(gate);
        }
        Value::Array(items) => items.iter_mut().for_each(gate),
        _ => {}
    }
}

/// An action schema whose variants admit no field they do not name: the server refuses a move
/// with any field beyond the action's own (it keeps only the canonical action in the log),
/// which the domain's schemas of tagged enums do not say themselves.
fn closed_variants(mut schema: Value) -> Value {
    let union = if schema.get("oneOf").is_some() {
        "oneOf"
    } else {
        "anyOf"
    };
    let variants = schema.get_mut(union).and_then(Value::as_array_mut);
    for variant in variants.into_iter().flatten() {
        if let Some(variant) = variant.as_object_mut() {
            if variant.contains_key("properties") {
                variant
                    .entry("additionalProperties")
                    .or_insert(Value::Bool(false));
            }
        }
    }
    schema
}

/// What a definition of `game` is called in the components: `Card_for_Girl` → `GirlCard`,
/// `BritishBirdsCard` stays as it is.
fn definition_component(prefix: &str, name: &str) -> String {
    let name = name.split("_for_").next().unwrap_or(name);
    if name.starts_with(prefix) {
        name.to_string()
    } else {
        format!("{prefix}{name}")
    }
}

/// Puts the `$defs` of one part of one game into the components, each named after the game
/// (`GirlCard`), and answers with the part's schema, its `$ref`s pointed at them. A definition
/// that two parts of a game give differently gets the part's name too (`GirlEventCard`).
fn add_definitions(
    components: &mut Map<String, Value>,
    reserved: &[String],
    game: &str,
    part: Part,
    schema: &Value,
) -> Value {
    let prefix = type_prefix(game);
    let mut schema = schema.clone();
    let defs = match schema.as_object_mut() {
        Some(object) => {
            object.remove("$schema");
            match object.remove("$defs") {
                Some(Value::Object(defs)) => defs,
                _ => Map::new(),
            }
        }
        None => Map::new(),
    };
    let mut names: BTreeMap<String, String> = defs
        .keys()
        .map(|name| (name.clone(), definition_component(&prefix, name)))
        .collect();
    // A definition keeps the game-wide name unless that name is taken by something else;
    // renaming one changes those that point at it, so settle every name first.
    loop {
        let mut renamed = false;
        for (name, def) in &defs {
            let component = &names[name];
            let own = format!("{prefix}{}{name}", part.suffix());
            if *component == own {
                continue;
            }
            let rewritten = with_refs_renamed(def, &names);
            let shared = names.iter().any(|(other, component_of_other)| {
                other != name && component_of_other == component
            });
            let taken = reserved.contains(component)
                || shared
                || components
                    .get(component)
                    .is_some_and(|existing| existing != &rewritten);
            if taken {
                names.insert(name.clone(), own);
                renamed = true;
            }
        }
        if !renamed {
            break;
        }
    }
    for (name, def) in &defs {
        components.insert(names[name].clone(), with_refs_renamed(def, &names));
    }
    with_refs_renamed(&schema, &names)
}

/// `schema` with each `#/$defs/<name>` reference pointed at the component `names` gives.
fn with_refs_renamed(schema: &Value, names: &BTreeMap<String, String>) -> Value {
    match schema {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| {
                    let value = match (key.as_str(), value) {
                        ("$ref", Value::String(target)) => {
                            let renamed = target
                                .strip_prefix("#/$defs/")
                                .and_then(|name| names.get(name))
                                .map(|component| format!("#/components/schemas/{component}"));
                            Value::String(renamed.unwrap_or_else(|| target.clone()))
                        }
                        _ => with_refs_renamed(value, names),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| with_refs_renamed(item, names))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Each variant of a tagged event schema (a game's events, or those seen otherwise during
/// play) with its `type`, and its data: the variant without the tag, which the log gives
/// beside it.
fn tagged_variants(event: &Value) -> Vec<(String, Value)> {
    let variants = event
        .get("oneOf")
        .or_else(|| event.get("anyOf"))
        .and_then(Value::as_array);
    variants
        .into_iter()
        .flatten()
        .filter_map(|variant| {
            let mut variant = variant.clone();
            let object = variant.as_object_mut()?;
            let tag = object
                .get("properties")
                .and_then(|properties| properties.get("type"))
                .and_then(|tag| tag.get("const").or_else(|| tag.pointer("/enum/0")))
                .and_then(Value::as_str)?
                .to_string();
            if let Some(Value::Object(properties)) = object.get_mut("properties") {
                properties.remove("type");
            }
            if let Some(Value::Array(required)) = object.get_mut("required") {
                required.retain(|name| name != "type");
            }
            object.remove("title");
            Some((tag, variant))
        })
        .collect()
}
