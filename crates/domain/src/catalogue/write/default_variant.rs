//! Exactly one variant of a product is its default (the one a till or a shop front shows
//! first). A create without one makes its first variant the default; `isDefault: true` on a
//! patch or an added variant moves the default there; and the default cannot be switched off
//! where it is, only moved, since that would leave the product without one.
//!
//! Imported products may hold no default or several (the import takes `isDefault` as given):
//! the rules never make that worse. `true` still moves the default to one variant; `false` is
//! refused only on the product's only default; a variant added to a product without a default
//! becomes it.

use crate::catalogue::Product;
use crate::id::VariantId;
use crate::write::MemberProblem;

pub const LAST_DEFAULT_MESSAGE: &str =
    "a product keeps exactly one default variant; set isDefault on another variant to move it";

/// Why a variant write cannot apply to the product as stored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VariantWriteRefusal {
    /// The variant of the path is not one of the product's (the 404 of the route).
    #[error("the product has no variant with this id")]
    UnknownVariant,
    /// `isDefault: false` on the product's only default variant.
    #[error("{LAST_DEFAULT_MESSAGE}")]
    LastDefault,
    /// An added variant beyond [`super::MAX_VARIANTS`].
    #[error("a product holds at most {} variants", super::MAX_VARIANTS)]
    TooManyVariants,
}

impl VariantWriteRefusal {
    /// The problem as a member of the body names it, when one does.
    pub fn member_problem(&self) -> Option<MemberProblem> {
        match self {
            Self::LastDefault => Some(MemberProblem {
                path: "isDefault".to_owned(),
                message: LAST_DEFAULT_MESSAGE.to_owned(),
            }),
            Self::UnknownVariant | Self::TooManyVariants => None,
        }
    }
}

/// Where the default goes when a variant is added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultOnAdd {
    /// Whether the added variant is the default.
    pub is_default: bool,
    /// The product's variants that stop being it.
    pub losing: Vec<VariantId>,
}

/// The default when a variant that asks for it (`isDefault: true`) or not is added to
/// `product`.
pub fn on_add(product: &Product, asks: bool) -> DefaultOnAdd {
    if asks {
        DefaultOnAdd {
            is_default: true,
            losing: defaults(product).cloned().collect(),
        }
    } else {
        DefaultOnAdd {
            is_default: defaults(product).next().is_none(),
            losing: Vec::new(),
        }
    }
}

/// The variants of `product` that stop being the default when `variant` is patched with
/// `is_default` (the patched one's own flag is the patch's); `LastDefault` when the patch
/// would leave the product without one.
pub fn on_patch(
    product: &Product,
    variant: &VariantId,
    is_default: Option<bool>,
) -> Result<Vec<VariantId>, VariantWriteRefusal> {
    match is_default {
        None => Ok(Vec::new()),
        Some(true) => Ok(defaults(product)
            .filter(|id| *id != variant)
            .cloned()
            .collect()),
        Some(false) => {
            let here = defaults(product).any(|id| id == variant);
            let elsewhere = defaults(product).any(|id| id != variant);
            if here && !elsewhere {
                Err(VariantWriteRefusal::LastDefault)
            } else {
                Ok(Vec::new())
            }
        }
    }
}

fn defaults(product: &Product) -> impl Iterator<Item = &VariantId> {
    product
        .variants
        .iter()
        .filter(|variant| variant.is_default)
        .map(|variant| &variant.id)
}
