//! The words seeded data are made of: a French gift and home-goods shop, in the spirit of the
//! demo shop (`shop-api demo`, `shop_app::demo`), with enough of each to give 100,000 products varied names.

/// What a product's variants differ by.
#[derive(Clone, Copy, Debug)]
pub enum Axis {
    /// One colour each, with its swatch; the product's name carries no colour.
    Colour,
    /// Sizes, in order; the product's name carries its colour.
    Size,
    /// Weights, volumes or formats, in order.
    Format(&'static [&'static str]),
}

/// A kind of product: how it is named, coded, priced and taxed.
#[derive(Clone, Copy, Debug)]
pub struct ProductKind {
    pub name: &'static str,
    /// SKU prefix.
    pub code: &'static str,
    /// Index in [`CATEGORIES`].
    pub category: usize,
    /// What follows the name: a material, a flavour, a scent.
    pub qualities: &'static [&'static str],
    pub axis: Axis,
    /// Price range of the first variant, whole euros (a fixed price when both are equal).
    pub euros: (i64, i64),
    /// Added to the price per step along a `Format` axis, in cents.
    pub step: i64,
    /// In hundredths of a percent: 20.00 % is 2000.
    pub tax_rate: i64,
    /// Gift cards and workshops are not stock.
    pub tracked: bool,
}

const JARS: &[&str] = &[
    "125 g", "250 g", "370 g", "500 g", "750 g", "1 kg", "2 kg", "5 kg",
];
const VOLUMES: &[&str] = &[
    "10 cl", "25 cl", "35 cl", "50 cl", "75 cl", "1 l", "1,5 l", "2 l",
];
const CANDLES: &[&str] = &[
    "mini", "petite", "moyenne", "grande", "XL", "trio", "coffret", "recharge",
];
const PAPER: &[&str] = &[
    "A6", "A5", "B5", "A4", "carré", "poche", "lot de 3", "lot de 5",
];
const DIAMETERS: &[&str] = &[
    "Ø 15 cm", "Ø 20 cm", "Ø 25 cm", "Ø 30 cm", "Ø 40 cm", "Ø 50 cm", "Ø 60 cm", "Ø 80 cm",
];
const AMOUNTS: &[&str] = &[
    "10 €", "20 €", "30 €", "40 €", "50 €", "60 €", "70 €", "80 €",
];
const SESSIONS: &[&str] = &[
    "1 h",
    "2 h",
    "demi-journée",
    "journée",
    "duo",
    "enfant",
    "groupe",
    "week-end",
];

pub const CATEGORIES: &[&str] = &[
    "Maison",
    "Cuisine",
    "Textile",
    "Papeterie",
    "Beauté",
    "Épicerie fine",
    "Accessoires",
    "Cadeaux",
];

#[rustfmt::skip]
pub const KINDS: &[ProductKind] = &[
    kind("Bougie parfumée", "BGP", 0, &["à la figue", "au monoï", "à la lavande", "au bois de santal", "à la fleur d'oranger"], Axis::Format(CANDLES), (9, 39), 600, 2000),
    kind("Vase", "VAS", 0, &["en verre soufflé", "en grès", "en céramique", "en terre cuite"], Axis::Colour, (15, 89), 0, 2000),
    kind("Coussin", "CSN", 0, &["en velours", "en lin lavé", "en coton bio", "en laine bouillie"], Axis::Colour, (19, 59), 0, 2000),
    kind("Lampe", "LMP", 0, &["en laiton", "en céramique", "en rotin", "en chêne"], Axis::Colour, (35, 189), 0, 2000),
    kind("Plateau", "PLT", 0, &["en chêne", "en rotin", "en marbre", "en laiton"], Axis::Colour, (19, 79), 0, 2000),
    kind("Panier", "PAN", 0, &["en osier", "en jonc de mer", "en coton tressé"], Axis::Format(DIAMETERS), (15, 65), 500, 2000),
    kind("Miroir", "MIR", 0, &["en rotin", "en laiton", "en chêne"], Axis::Format(DIAMETERS), (29, 149), 500, 2000),
    kind("Mug", "MUG", 1, &["en grès", "en porcelaine", "émaillé"], Axis::Colour, (9, 24), 0, 2000),
    kind("Bol", "BOL", 1, &["en grès", "en porcelaine", "en céramique"], Axis::Colour, (8, 22), 0, 2000),
    kind("Assiette", "ASS", 1, &["en grès", "en porcelaine", "en faïence"], Axis::Colour, (9, 29), 0, 2000),
    kind("Théière", "THR", 1, &["en fonte", "en porcelaine", "en grès"], Axis::Colour, (25, 79), 0, 2000),
    kind("Carafe", "CRF", 1, &["en verre soufflé", "en cristal"], Axis::Format(VOLUMES), (15, 49), 400, 2000),
    kind("Tablier", "TBL", 1, &["en lin", "en coton épais", "en denim"], Axis::Size, (19, 45), 0, 2000),
    kind("Torchon", "TOR", 1, &["en lin", "en coton nid d'abeille"], Axis::Colour, (6, 18), 0, 2000),
    kind("Plaid", "PLD", 2, &["en laine", "en cachemire", "en coton gaufré", "en mohair"], Axis::Colour, (39, 189), 0, 2000),
    kind("Écharpe", "ECH", 2, &["en laine", "en cachemire", "en soie", "en lin"], Axis::Colour, (25, 129), 0, 2000),
    kind("Bonnet", "BON", 2, &["en laine", "en alpaga", "en coton"], Axis::Size, (19, 49), 0, 2000),
    kind("Chaussettes", "CHS", 2, &["en coton bio", "en laine mérinos"], Axis::Size, (9, 19), 0, 2000),
    kind("Pull", "PUL", 2, &["en laine", "en cachemire", "en coton"], Axis::Size, (59, 189), 0, 2000),
    kind("Carnet", "CRN", 3, &["ligné", "pointillé", "à dessin", "en papier recyclé"], Axis::Format(PAPER), (6, 29), 300, 2000),
    kind("Stylo plume", "STY", 3, &["en laiton", "en résine", "en bois d'olivier"], Axis::Colour, (19, 89), 0, 2000),
    kind("Agenda", "AGD", 3, &["semainier", "journalier", "en cuir recyclé"], Axis::Colour, (14, 39), 0, 2000),
    kind("Livre de recettes", "LIV", 3, &["de saison", "de Provence", "de grand-mère"], Axis::Format(PAPER), (15, 39), 300, 550),
    kind("Savon", "SAV", 4, &["à l'huile d'olive", "au lait d'ânesse", "à l'argile verte", "au miel"], Axis::Format(JARS), (4, 12), 250, 2000),
    kind("Huile de soin", "HUI", 4, &["à l'argan", "à l'amande douce", "au calendula"], Axis::Format(VOLUMES), (12, 39), 400, 2000),
    kind("Confiture", "CNF", 5, &["de figue", "d'abricot", "de fraise", "de mirabelle", "de cerise noire"], Axis::Format(JARS), (4, 11), 250, 550),
    kind("Miel", "MIE", 5, &["de lavande", "d'acacia", "de châtaignier", "toutes fleurs"], Axis::Format(JARS), (6, 19), 250, 550),
    kind("Thé", "THE", 5, &["vert au jasmin", "noir fumé", "blanc à la pêche", "rooibos à la vanille"], Axis::Format(JARS), (6, 24), 250, 550),
    kind("Tablette de chocolat", "CHO", 5, &["noir 70 %", "au lait noisettes", "blanc framboise"], Axis::Format(JARS), (3, 9), 250, 550),
    kind("Sac cabas", "SAC", 6, &["en toile de jute", "en coton épais", "en cuir végétal"], Axis::Colour, (15, 89), 0, 2000),
    kind("Trousse", "TRS", 6, &["en lin", "en velours", "en cuir végétal"], Axis::Colour, (12, 39), 0, 2000),
    kind("Porte-clés", "PCL", 6, &["en laiton", "en cuir", "en liège"], Axis::Colour, (6, 19), 0, 2000),
    kind("Carte cadeau", "KDO", 7, &["de la boutique"], Axis::Format(AMOUNTS), (10, 10), 1000, 0),
    kind("Atelier créatif", "ATL", 7, &["de poterie", "de couture", "de calligraphie", "de bougies"], Axis::Format(SESSIONS), (25, 95), 1500, 2000),
];

#[expect(
    clippy::too_many_arguments,
    reason = "one row of the table above: positional columns read better than a struct literal per row"
)]
const fn kind(
    name: &'static str,
    code: &'static str,
    category: usize,
    qualities: &'static [&'static str],
    axis: Axis,
    euros: (i64, i64),
    step: i64,
    tax_rate: i64,
) -> ProductKind {
    // Gift cards (no tax) and workshops are the untracked kinds.
    let tracked = !matches!(category, 7);
    ProductKind {
        name,
        code,
        category,
        qualities,
        axis,
        euros,
        step,
        tax_rate,
        tracked,
    }
}

/// Colours as variant labels (with their swatch and SKU code) and in product names. All
/// invariable in French, so that they fit any product.
pub const COLOURS: &[(&str, &str, &str)] = &[
    ("bleu nuit", "#1B2A4A", "BLN"),
    ("terracotta", "#C4622D", "TER"),
    ("sauge", "#9CAF88", "SAU"),
    ("ivoire", "#FFFFF0", "IVO"),
    ("moutarde", "#D8A93B", "MOU"),
    ("ocre", "#CC7722", "OCR"),
    ("anthracite", "#383E42", "ANT"),
    ("corail", "#F08070", "COR"),
    ("émeraude", "#2A7B5F", "EME"),
    ("prune", "#6B2D5C", "PRU"),
    ("caramel", "#B5651D", "CAR"),
    ("lin", "#E8DCC8", "LIN"),
    ("bleu canard", "#1F6F78", "BLC"),
    ("vert sapin", "#2E5339", "VSA"),
    ("rose poudré", "#E8C4C4", "ROP"),
    ("gris perle", "#C9C9C4", "GRP"),
];

pub const SIZES: &[&str] = &["XS", "S", "M", "L", "XL", "XXL", "3XL", "4XL"];

/// The last word of a product's name: its collection.
pub const COLLECTIONS: &[&str] = &[
    "Atlas",
    "Riviera",
    "Montmartre",
    "Belle-Île",
    "Camargue",
    "Vercors",
    "Armor",
    "Luberon",
    "Étretat",
    "Cévennes",
    "Océane",
    "Provence",
    "Sologne",
    "Ardèche",
    "Biarritz",
    "Chamonix",
    "Quiberon",
    "Annecy",
    "Gascogne",
    "Vendôme",
];

pub const BRANDS: &[&str] = &[
    "Atelier Nord",
    "Tissages de Loire",
    "Papier & Co",
    "Savonnerie du Port",
    "Maison Garance",
    "Céramiques de Provence",
    "Les Ateliers Réunis",
    "Verrerie de Biot",
    "Lin & Chanvre",
    "Comptoir des Épices",
    "Bois d'Ici",
    "Ruche de Sologne",
    "Fabrique Lumière",
    "Bleu de Chauffe",
    "Manufacture Colbert",
    "Coton Doux",
    "Terre & Feu",
    "Maison Félicie",
    "L'Herbier",
    "Éditions du Marché",
];

pub const PRODUCT_TAGS: &[&str] = &[
    "nouveauté",
    "best-seller",
    "fait main",
    "éco-responsable",
    "édition limitée",
    "made in France",
    "idée cadeau",
];

/// Loyalty tiers, as in the demo: name, lifetime points, colour.
pub const TIERS: &[(&str, i64, &str)] = &[
    ("Bronze", 0, "#CD7F32"),
    ("Argent", 500, "#C0C0C0"),
    ("Or", 2000, "#FFD700"),
];

pub const FIRST_NAMES: &[&str] = &[
    "Marie",
    "Lucas",
    "Camille",
    "Hugo",
    "Léa",
    "Nathan",
    "Chloé",
    "Louis",
    "Inès",
    "Jules",
    "Manon",
    "Gabriel",
    "Emma",
    "Arthur",
    "Jade",
    "Raphaël",
    "Louise",
    "Théo",
    "Alice",
    "Noé",
    "Zoé",
    "Tom",
    "Lina",
    "Paul",
    "Rose",
    "Adam",
    "Anna",
    "Maël",
    "Juliette",
    "Sacha",
    "Élise",
    "Victor",
    "Margaux",
    "Antoine",
    "Clémence",
    "Mathis",
    "Agathe",
    "Étienne",
    "Héloïse",
    "Yanis",
];

pub const LAST_NAMES: &[&str] = &[
    "Martin",
    "Bernard",
    "Dubois",
    "Thomas",
    "Robert",
    "Richard",
    "Petit",
    "Durand",
    "Leroy",
    "Moreau",
    "Simon",
    "Laurent",
    "Lefèvre",
    "Michel",
    "Garcia",
    "David",
    "Bertrand",
    "Roux",
    "Vincent",
    "Fournier",
    "Morel",
    "Girard",
    "André",
    "Mercier",
    "Dupont",
    "Lambert",
    "Bonnet",
    "François",
    "Martinez",
    "Legrand",
    "Garnier",
    "Faure",
    "Rousseau",
    "Blanc",
    "Guérin",
    "Muller",
    "Henry",
    "Roussel",
    "Nicolas",
    "Perrin",
    "Morin",
    "Mathieu",
    "Clément",
    "Gauthier",
    "Dumont",
    "Lopez",
    "Fontaine",
    "Chevalier",
    "Robin",
    "Masson",
    "Le Goff",
    "Le Gall",
    "Kerbrat",
    "Sanchez",
    "Boyer",
    "Denis",
    "Lemaire",
    "Duval",
    "Joly",
    "Gaillard",
];

/// Billing cities: country, city, postal code.
pub const CITIES: &[(&str, &str, &str)] = &[
    ("FR", "Paris", "75011"),
    ("FR", "Lyon", "69002"),
    ("FR", "Marseille", "13006"),
    ("FR", "Nantes", "44000"),
    ("FR", "Lille", "59000"),
    ("FR", "Bordeaux", "33000"),
    ("FR", "Toulouse", "31000"),
    ("FR", "Rennes", "35000"),
    ("FR", "Strasbourg", "67000"),
    ("FR", "Montpellier", "34000"),
    ("FR", "Nice", "06000"),
    ("FR", "Angers", "49100"),
    ("FR", "Brest", "29200"),
    ("FR", "Dijon", "21000"),
    ("FR", "Grenoble", "38000"),
    ("FR", "Quimper", "29000"),
    ("FR", "Annecy", "74000"),
    ("FR", "Tours", "37000"),
    ("BE", "Bruxelles", "1000"),
    ("CH", "Genève", "1201"),
];

pub const STREETS: &[&str] = &[
    "rue des Lilas",
    "avenue Jean Jaurès",
    "boulevard Voltaire",
    "place de la République",
    "chemin des Vignes",
    "rue de la Paix",
    "allée des Tilleuls",
    "rue du Port",
    "impasse des Glycines",
    "quai de la Loire",
];

pub const COMPANY_FORMS: &[&str] = &["SARL", "SAS", "EURL", "& Fils"];

pub const MAIL_DOMAINS: &[&str] = &["example.com", "example.fr", "example.org", "example.net"];

/// Instant-win prizes: label, type.
pub const PRIZES: &[(&str, &str)] = &[
    ("Bougie offerte", "product"),
    ("-10 % sur le prochain achat", "discount"),
    ("Mug en grès offert", "product"),
    ("Carte cadeau 5 €", "voucher"),
];

/// Lower-case ASCII for e-mail addresses: accents dropped, `œ` spelled out, anything else that
/// is not a letter or digit removed (`Le Goff` → `legoff`).
pub fn ascii_fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for ch in text.chars().flat_map(char::to_lowercase) {
        match ch {
            'à' | 'â' | 'ä' => folded.push('a'),
            'é' | 'è' | 'ê' | 'ë' => folded.push('e'),
            'î' | 'ï' => folded.push('i'),
            'ô' | 'ö' => folded.push('o'),
            'ù' | 'û' | 'ü' => folded.push('u'),
            'ç' => folded.push('c'),
            'œ' => folded.push_str("oe"),
            'a'..='z' | '0'..='9' => folded.push(ch),
            _ => {}
        }
    }
    folded
}

#[cfg(test)]
mod tests {
    use shop_domain::color::HexColor;

    use super::*;

    #[test]
    fn every_axis_offers_eight_variants_and_every_colour_parses() {
        assert!(COLOURS.len() >= 8 && SIZES.len() == 8);
        for kind in KINDS {
            if let Axis::Format(formats) = kind.axis {
                assert_eq!(formats.len(), 8, "{}", kind.name);
            }
            assert!(kind.category < CATEGORIES.len() && !kind.qualities.is_empty());
            assert!(
                kind.euros.0 >= 1 && kind.euros.0 <= kind.euros.1,
                "{}",
                kind.name
            );
        }
        for (_, swatch, _) in COLOURS {
            assert!(HexColor::parse(swatch).is_ok(), "{swatch}");
        }
    }

    #[test]
    fn e_mail_parts_are_plain_ascii() {
        assert_eq!(ascii_fold("Héloïse"), "heloise");
        assert_eq!(ascii_fold("Le Goff"), "legoff");
        assert_eq!(ascii_fold("François"), "francois");
    }
}
