//! The catalogue: loyalty tiers, categories, brands, and products with 1 to 8 variants.

use shop_domain::Timestamp;
use shop_domain::catalogue::{BrandRef, CategoryRef, Product, Variant};
use shop_domain::color::HexColor;
use shop_domain::id::{BrandId, CategoryId, ProductId, TierId, VariantId};
use shop_domain::loyalty::LoyaltyTier;
use shop_domain::money::Cents;
use shop_domain::tax_rate::TaxRate;

use super::ids::SeedIds;
use super::random::{Draw, Timeline};
use super::vocabulary::{
    Axis, BRANDS, CATEGORIES, COLLECTIONS, COLOURS, KINDS, PRODUCT_TAGS, ProductKind, SIZES, TIERS,
};
use super::{GeneratorError, checked};

/// What an order needs to sell a product: its name, tax rate and each variant's price.
#[derive(Clone, Debug)]
pub struct CatalogueEntry {
    pub name: String,
    pub tax_rate: TaxRate,
    pub variant_prices: Vec<Cents>,
}

impl CatalogueEntry {
    pub fn of(product: &Product) -> Self {
        Self {
            name: product.name.clone(),
            tax_rate: product.tax_rate,
            variant_prices: product.variants.iter().map(|v| v.price).collect(),
        }
    }
}

pub fn tiers(ids: &SeedIds) -> Result<Vec<LoyaltyTier>, GeneratorError> {
    TIERS
        .iter()
        .enumerate()
        .map(|(k, (name, min_points, colour))| {
            Ok(LoyaltyTier {
                id: checked(TierId::parse(ids.tier(k)))?,
                name: (*name).to_owned(),
                min_points_lifetime: *min_points,
                color: checked(HexColor::parse(colour))?,
            })
        })
        .collect()
}

pub fn categories(ids: &SeedIds) -> Result<Vec<CategoryRef>, GeneratorError> {
    (0..CATEGORIES.len()).map(|k| category(ids, k)).collect()
}

pub fn brands(ids: &SeedIds) -> Result<Vec<BrandRef>, GeneratorError> {
    (0..BRANDS.len()).map(|k| brand(ids, k)).collect()
}

fn category(ids: &SeedIds, k: usize) -> Result<CategoryRef, GeneratorError> {
    Ok(CategoryRef {
        id: checked(CategoryId::parse(ids.category(k)))?,
        name: CATEGORIES[k].to_owned(),
    })
}

fn brand(ids: &SeedIds, k: usize) -> Result<BrandRef, GeneratorError> {
    Ok(BrandRef {
        id: checked(BrandId::parse(ids.brand(k)))?,
        name: BRANDS[k].to_owned(),
    })
}

/// Makes products in index order, from the catalogue's own random stream.
pub struct ProductMaker {
    ids: SeedIds,
    slug: String,
    timeline: Timeline,
    end: Timestamp,
}

/// One variant before it gets its id, codes, price and stock.
struct Choice {
    label: String,
    code: String,
    swatch: Option<&'static str>,
    /// Position along the axis, for the price step.
    step: i64,
}

impl ProductMaker {
    /// Products are created one after another over `timeline`; none is updated after `end`.
    pub fn new(ids: SeedIds, slug: &str, timeline: Timeline, end: Timestamp) -> Self {
        Self {
            ids,
            slug: slug.to_owned(),
            timeline,
            end,
        }
    }

    pub fn product(&self, i: usize, draw: &mut Draw) -> Result<Product, GeneratorError> {
        let kind = draw.pick(KINDS);
        let (name, choices) = name_and_choices(kind, draw);
        let product_type = if choices.len() == 1 {
            "simple"
        } else {
            "variable"
        };
        let price = Pricing {
            base: base_price(kind, draw),
            step: kind.step,
            promo: kind.tracked && draw.percent(8),
        };
        let has_barcodes = draw.percent(90);
        let sku = draw.percent(95).then(|| format!("{}-{i:07}", kind.code));
        let track_stock = kind.tracked && draw.percent(97);
        let created_at = self.timeline.moment(i, draw);
        // The product shows its default variant's price and barcode, as shops print them.
        let first_step = choices.first().map_or(0, |choice| choice.step);

        let mut variants = Vec::with_capacity(choices.len());
        for (j, choice) in choices.into_iter().enumerate() {
            let (stock, low_stock_threshold) = if track_stock {
                stock_level(draw)
            } else {
                (0, 0)
            };
            variants.push(Variant {
                id: checked(VariantId::parse(self.ids.variant(i, j)))?,
                sku: sku.as_ref().map(|sku| format!("{sku}-{}", choice.code)),
                barcode: has_barcodes.then(|| ean13(i * 10 + j)),
                swatch_color: checked(choice.swatch.map(HexColor::parse).transpose())?,
                price: Cents(price.selling(choice.step)),
                label: choice.label,
                stock,
                low_stock_threshold,
                is_default: j == 0,
                // The default variant stays on sale.
                active: j == 0 || draw.percent(94),
                order: j as i32,
                // Every variant tracks stock as its product does.
                tracked: track_stock,
            });
        }
        let photo = |k: usize| {
            format!(
                "https://cdn.example.com/{}/{}-{k}.jpg",
                self.slug,
                self.ids.product(i)
            )
        };
        Ok(Product {
            id: checked(ProductId::parse(self.ids.product(i)))?,
            product_type: product_type.to_owned(),
            ean: variants.first().and_then(|v| v.barcode.clone()),
            price: Cents(price.selling(first_step)),
            list_price: Cents(price.list(first_step)),
            compare_at_price: price.promo.then(|| Cents(price.list(first_step))),
            promo_active: price.promo,
            tax_rate: checked(TaxRate::from_hundredths(kind.tax_rate))?,
            active: draw.percent(93),
            track_stock,
            tags: pick_tags(draw),
            photos: (0..draw.weighted(&[(0, 10), (1, 50), (2, 25), (3, 15)]))
                .map(photo)
                .collect(),
            category: if draw.percent(96) {
                Some(category(&self.ids, kind.category)?)
            } else {
                None
            },
            brand: if draw.percent(85) {
                Some(brand(&self.ids, draw.index(BRANDS.len()))?)
            } else {
                None
            },
            updated_at: draw.moment(created_at, self.end),
            created_at,
            name,
            sku,
            variants,
        })
    }
}

/// The product's name, and its 1 to 8 variants along the kind's axis.
fn name_and_choices(kind: &ProductKind, draw: &mut Draw) -> (String, Vec<Choice>) {
    let quality = draw.pick(kind.qualities);
    let collection = draw.pick(COLLECTIONS);
    let colour = draw.index(COLOURS.len());
    let count = draw.weighted(&[
        (1, 40),
        (2, 12),
        (3, 14),
        (4, 12),
        (5, 9),
        (6, 6),
        (7, 4),
        (8, 3),
    ]);
    let name = match kind.axis {
        // Colour variants: the name carries no colour.
        Axis::Colour | Axis::Format(_) => format!("{} {quality} {collection}", kind.name),
        Axis::Size => format!("{} {quality} {} {collection}", kind.name, COLOURS[colour].0),
    };
    (name, choices(kind, count, colour, draw))
}

/// A product's prices: each step along a format axis costs more; a promotion takes 20 % off
/// every variant, rounded down to ten cents.
struct Pricing {
    base: i64,
    step: i64,
    promo: bool,
}

impl Pricing {
    fn list(&self, step: i64) -> i64 {
        self.base + step * self.step
    }

    fn selling(&self, step: i64) -> i64 {
        let list = self.list(step);
        if self.promo {
            list * 80 / 100 / 10 * 10
        } else {
            list
        }
    }
}

/// `count` variants along the kind's axis: distinct colours, or a run of consecutive sizes or
/// formats.
fn choices(kind: &ProductKind, count: usize, colour: usize, draw: &mut Draw) -> Vec<Choice> {
    match kind.axis {
        Axis::Colour => (0..count)
            .map(|j| {
                // 5 is prime to the 16 colours: `count` distinct ones.
                let (label, swatch, code) = COLOURS[(colour + j * 5) % COLOURS.len()];
                Choice {
                    label: label.to_owned(),
                    code: code.to_owned(),
                    swatch: Some(swatch),
                    step: 0,
                }
            })
            .collect(),
        Axis::Size if count == 1 => vec![Choice {
            label: "Taille unique".to_owned(),
            code: "TU".to_owned(),
            swatch: None,
            step: 0,
        }],
        Axis::Size => run(SIZES, count, draw)
            .map(|(_, size)| Choice {
                label: size.to_owned(),
                code: size.to_owned(),
                swatch: None,
                step: 0,
            })
            .collect(),
        Axis::Format(formats) => run(formats, count, draw)
            .map(|(position, format)| Choice {
                label: format.to_owned(),
                code: format!("F{position}"),
                swatch: None,
                step: position as i64,
            })
            .collect(),
    }
}

/// `count` consecutive entries of `list`, with their positions, from a random start.
fn run<'a>(
    list: &'a [&'a str],
    count: usize,
    draw: &mut Draw,
) -> impl Iterator<Item = (usize, &'a str)> {
    let count = count.min(list.len());
    let start = draw.index(list.len() - count + 1);
    list.iter().copied().enumerate().skip(start).take(count)
}

/// Whole euros in the kind's range, ending in .00, .50 or .90 (a fixed price stays exact).
fn base_price(kind: &ProductKind, draw: &mut Draw) -> i64 {
    let (low, high) = kind.euros;
    if low == high {
        return low * 100;
    }
    draw.between(low, high) * 100 + draw.weighted(&[(0, 30), (50, 20), (90, 50)])
}

/// `(stock, low-stock threshold)`: mostly in stock, some low, some out (a few below zero, as
/// sales recorded before a delivery leave them).
fn stock_level(draw: &mut Draw) -> (i64, i64) {
    let threshold = draw.between(2, 5);
    let stock = match draw.weighted(&[(0, 6), (1, 10), (2, 84)]) {
        0 if draw.percent(15) => -draw.between(1, 2),
        0 => 0,
        1 => draw.between(1, threshold),
        _ => draw.between(threshold + 1, 60),
    };
    (stock, threshold)
}

fn pick_tags(draw: &mut Draw) -> Vec<String> {
    let count = draw.weighted(&[(0, 50), (1, 35), (2, 15)]);
    let first = draw.index(PRODUCT_TAGS.len());
    (0..count)
        .map(|k| PRODUCT_TAGS[(first + k * 3) % PRODUCT_TAGS.len()].to_owned())
        .collect()
}

/// A valid EAN-13 in the French range (376…) whose body is `number`.
pub fn ean13(number: usize) -> String {
    let mut digits = format!("376{number:09}");
    let sum: u32 = digits
        .bytes()
        .enumerate()
        .map(|(position, digit)| {
            let value = u32::from(digit - b'0');
            if position % 2 == 0 { value } else { value * 3 }
        })
        .sum();
    digits.push(char::from(b'0' + ((10 - sum % 10) % 10) as u8));
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eans_carry_their_check_digit() {
        let ean = ean13(12_345);
        assert_eq!(ean.len(), 13);
        assert_eq!(ean, "3760000123457");
    }
}
