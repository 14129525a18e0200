//! The tables, as diesel sees them. Written by hand to match both migration folders, which
//! differ only in PostgreSQL's `COLLATE "C"` on key columns (invisible at this level).
//!
//! No `joinable!`: every join spells out its `ON` clause, so that each one visibly matches on
//! `shop_id` too.

diesel::table! {
    shops (id) {
        id -> Text,
        slug -> Text,
        name -> Text,
        public_api -> Bool,
        subscription -> Text,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    api_keys (prefix) {
        prefix -> Text,
        shop_id -> Text,
        label -> Text,
        scopes -> Text,
        secret_hash -> Text,
        created_at_ms -> BigInt,
        expires_at_ms -> Nullable<BigInt>,
        revoked_at_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    categories (id) {
        id -> Text,
        shop_id -> Text,
        name -> Text,
    }
}

diesel::table! {
    brands (id) {
        id -> Text,
        shop_id -> Text,
        name -> Text,
    }
}

diesel::table! {
    loyalty_tiers (id) {
        id -> Text,
        shop_id -> Text,
        name -> Text,
        min_points_lifetime -> BigInt,
        color -> Text,
    }
}

diesel::table! {
    products (id) {
        id -> Text,
        shop_id -> Text,
        name -> Text,
        product_type -> Text,
        ean -> Nullable<Text>,
        sku -> Nullable<Text>,
        price_cents -> BigInt,
        list_price_cents -> BigInt,
        compare_at_price_cents -> Nullable<BigInt>,
        promo_active -> Bool,
        tax_rate_hundredths -> BigInt,
        active -> Bool,
        track_stock -> Bool,
        tags -> Text,
        photos -> Text,
        category_id -> Nullable<Text>,
        brand_id -> Nullable<Text>,
        search_text -> Text,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    variants (id) {
        id -> Text,
        shop_id -> Text,
        product_id -> Text,
        label -> Text,
        sku -> Nullable<Text>,
        barcode -> Nullable<Text>,
        swatch_color -> Nullable<Text>,
        price_cents -> BigInt,
        stock -> BigInt,
        low_stock_threshold -> BigInt,
        is_default -> Bool,
        active -> Bool,
        position -> Integer,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    shops,
    api_keys,
    categories,
    brands,
    loyalty_tiers,
    products,
    variants,
);
