//! `category` and `brand` in a product write: `{"id": …}` links an existing one,
//! `{"name": …}` the shop's one of that name (any case), created when the shop has none.
//! Which one that is needs the database: persistence resolves it.

use crate::id::{BrandId, CategoryId};
use crate::text::fold_case;
use crate::write::{self, MemberProblems};

/// The members of a reference that had the right JSON type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReferenceInput {
    pub id: Option<String>,
    pub name: Option<String>,
}

/// A valid reference to a category or a brand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CatalogueReference {
    /// The id as given, untrimmed: an id that cannot exist names no row either, so persistence
    /// answers it as it answers an unknown one (400 naming `category.id`).
    Id(String),
    /// Trimmed, 1 to 200 characters: the name a created row gets.
    Name(String),
}

impl CatalogueReference {
    /// Reads `input`, given at `path` (`category`, `brand`); its problems are named under it.
    pub(super) fn read(
        problems: &mut MemberProblems,
        path: &str,
        input: ReferenceInput,
    ) -> Option<Self> {
        match (input.id, input.name) {
            (Some(_), Some(_)) => {
                problems.push(path, "must hold either id or name, not both");
                None
            }
            (Some(id), None) => Some(Self::Id(id)),
            (None, Some(name)) => problems
                .check(&format!("{path}.name"), write::name(&name))
                .map(Self::Name),
            // A mistyped `id` or `name` was reported by the reader; this says what is missing.
            (None, None) => {
                problems.push(path, "must hold id or name");
                None
            }
        }
    }

    /// The category this id names, if it can name one at all.
    pub fn category_id(&self) -> Option<CategoryId> {
        match self {
            Self::Id(id) => CategoryId::parse(id.as_str()).ok(),
            Self::Name(_) => None,
        }
    }

    /// The brand this id names, if it can name one at all.
    pub fn brand_id(&self) -> Option<BrandId> {
        match self {
            Self::Id(id) => BrandId::parse(id.as_str()).ok(),
            Self::Name(_) => None,
        }
    }

    /// The name folded as the match compares it: `Shoes` finds the shop's `shoes`.
    pub fn folded_name(&self) -> Option<String> {
        match self {
            Self::Id(_) => None,
            Self::Name(name) => Some(fold_case(name)),
        }
    }
}

/// A nullable reference member of a patch: absent stays absent, `null` removes it.
pub(super) fn nullable_reference(
    problems: &mut MemberProblems,
    path: &str,
    given: Option<Option<ReferenceInput>>,
) -> Option<Option<CatalogueReference>> {
    match given? {
        None => Some(None),
        Some(input) => CatalogueReference::read(problems, path, input).map(Some),
    }
}
