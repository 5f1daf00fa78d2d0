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
pub use crate::wire::{event_data_component, part_component, type_prefix, Part};

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
    for engine in catalog::engines() {
        let id = engine.describe().id;
        let published = engine.schemas();
        for part in Part::ALL {
            let schema = match part {
                Part::Options | Part::Action => gated(part.published(&published)),
                _ => part.published(&published).clone(),
            };
            let schema = add_definitions(components, &reserved, id, part, &schema);
            match part {
                Part::Event => {
                    components.insert(event_data_component(id), event_data(&schema));
                }
                Part::Action => {
                    components.insert(part_component(id, part), closed_variants(schema));
                }
                _ => {
                    components.insert(part_component(id, part), schema);
                }
            }
        }
    }
    document
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

/// The data of a game's events, as the log shows it beside each event's `type`: each variant of
/// the event schema without its `type`. The variants need not be told apart by their data
/// alone, so `anyOf`.
fn event_data(event: &Value) -> Value {
    let variants = event
        .get("oneOf")
        .or_else(|| event.get("anyOf"))
        .and_then(Value::as_array);
    let Some(variants) = variants else {
        return serde_json::json!({"description": "The event's data (the event without its `type`)."});
    };
    let data: Vec<Value> = variants.iter().map(without_type).collect();
    serde_json::json!({
        "description": "The data of one of the game's events: the event without its `type`, \
                        which the log gives beside it.",
        "anyOf": data,
    })
}

/// One event variant without its `type` tag, titled with the tag.
fn without_type(variant: &Value) -> Value {
    let mut variant = variant.clone();
    let Some(object) = variant.as_object_mut() else {
        return variant;
    };
    let tag = object
        .get("properties")
        .and_then(|properties| properties.get("type"))
        .and_then(|tag| tag.get("const").or_else(|| tag.pointer("/enum/0")))
        .cloned();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.remove("type");
    }
    if let Some(Value::Array(required)) = object.get_mut("required") {
        required.retain(|name| name != "type");
    }
    if let Some(Value::String(tag)) = tag {
        object.insert("title".into(), Value::String(tag));
    }
    variant
}
