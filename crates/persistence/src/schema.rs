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
        last_used_at_ms -> Nullable<BigInt>,
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
    /// The product search index: every suffix of each line of a product's search text, cut to
    /// 16 characters (migration `2026-11-25-030000_product_search_suffixes`, written by its
    /// triggers only; `catalogue::search` reads it).
    product_search_suffixes (shop_id, suffix, product_id) {
        shop_id -> Text,
        suffix -> Text,
        product_id -> Text,
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
        search_text -> Text,
        track_stock -> Bool,
        stock_updated_at_ms -> BigInt,
    }
}

diesel::table! {
    stock_movements (id) {
        id -> Text,
        shop_id -> Text,
        variant_id -> Text,
        product_id -> Text,
        delta -> BigInt,
        previous_stock -> BigInt,
        new_stock -> BigInt,
        reason -> Text,
        api_key_prefix -> Text,
        created_at_ms -> BigInt,
    }
}

diesel::table! {
    idempotency_records (api_key_prefix, idempotency_key) {
        api_key_prefix -> Text,
        idempotency_key -> Text,
        fingerprint -> Text,
        outcome -> Text,
        movement_id -> Nullable<Text>,
        created_at_ms -> BigInt,
        loyalty_adjustment_id -> Nullable<Text>,
        resource_id -> Nullable<Text>,
        member -> Nullable<Text>,
    }
}

diesel::table! {
    api_writes (id) {
        id -> Text,
        shop_id -> Text,
        api_key_prefix -> Text,
        resource -> Text,
        resource_id -> Text,
        action -> Text,
        changed -> Text,
        created_at_ms -> BigInt,
    }
}

diesel::table! {
    loyalty_adjustments (id) {
        id -> Text,
        shop_id -> Text,
        client_id -> Text,
        delta -> BigInt,
        previous_points -> BigInt,
        new_points -> BigInt,
        reason -> Text,
        api_key_prefix -> Text,
        created_at_ms -> BigInt,
    }
}

diesel::table! {
    clients (id) {
        id -> Text,
        shop_id -> Text,
        name -> Text,
        display_name -> Nullable<Text>,
        phone -> Nullable<Text>,
        email -> Nullable<Text>,
        billing_company -> Nullable<Text>,
        billing_vat_number -> Nullable<Text>,
        billing_address -> Nullable<Text>,
        billing_city -> Nullable<Text>,
        billing_postal_code -> Nullable<Text>,
        billing_country -> Text,
        birth_date -> Nullable<Text>,
        points -> BigInt,
        points_expires_at_ms -> Nullable<BigInt>,
        points_lifetime -> BigInt,
        points_all_time -> BigInt,
        tier_achieved_at_ms -> Nullable<BigInt>,
        receipt_by_email -> Bool,
        tags -> Text,
        note -> Nullable<Text>,
        anonymous_client_id -> Nullable<Text>,
        search_text -> Text,
        phone_digits -> Text,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
        email_key -> Nullable<Text>,
    }
}

diesel::table! {
    orders (id) {
        id -> Text,
        shop_id -> Text,
        order_number -> BigInt,
        source -> Text,
        status -> Text,
        payment_status -> Text,
        subtotal_cents -> BigInt,
        discount_amount_cents -> BigInt,
        tax_amount_cents -> BigInt,
        total_cents -> BigInt,
        payment_method -> Nullable<Text>,
        paid_at_ms -> Nullable<BigInt>,
        client_id -> Nullable<Text>,
        signature -> Nullable<Text>,
        previous_signature -> Nullable<Text>,
        cumulative_total_ttc_snapshot -> Nullable<BigInt>,
        internal_note -> Nullable<Text>,
        payment_intent_id -> Nullable<Text>,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    order_items (id) {
        id -> Text,
        shop_id -> Text,
        order_id -> Text,
        position -> Integer,
        product_id -> Text,
        variant_id -> Text,
        product_name -> Text,
        unit_price_cents -> BigInt,
        quantity -> BigInt,
        total_cents -> BigInt,
        tax_rate_hundredths -> BigInt,
        tax_amount_cents -> BigInt,
    }
}

diesel::table! {
    lottery_tickets (id) {
        id -> Text,
        shop_id -> Text,
        client_id -> Text,
        order_id -> Nullable<Text>,
        created_at_ms -> BigInt,
    }
}

diesel::table! {
    spins (id) {
        id -> Text,
        shop_id -> Text,
        client_id -> Text,
        order_id -> Nullable<Text>,
        won -> Bool,
        prize_label -> Nullable<Text>,
        prize_type -> Nullable<Text>,
        created_at_ms -> BigInt,
    }
}

diesel::table! {
    owners (id) {
        id -> Text,
        shop_id -> Text,
        email -> Text,
        password_hash -> Text,
        created_at_ms -> BigInt,
        disabled_at_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    owner_sessions (id_digest) {
        id_digest -> Text,
        owner_id -> Text,
        csrf_token -> Text,
        created_at_ms -> BigInt,
        last_seen_at_ms -> BigInt,
    }
}

diesel::table! {
    tracking_switches (id) {
        id -> Text,
        shop_id -> Text,
        variant_id -> Text,
        product_id -> Text,
        tracked -> Bool,
        owner_id -> Text,
        created_at_ms -> BigInt,
    }
}

diesel::table! {
    console_secrets (purpose) {
        purpose -> Text,
        secret_hex -> Text,
    }
}

diesel::table! {
    webhook_endpoints (id) {
        id -> Text,
        shop_id -> Text,
        url -> Text,
        events -> Text,
        receives -> Text,
        creator_scopes -> Text,
        description -> Text,
        status -> Text,
        disabled_reason -> Nullable<Text>,
        secret -> Text,
        previous_secret -> Nullable<Text>,
        previous_secret_until_ms -> Nullable<BigInt>,
        failing_since_ms -> Nullable<BigInt>,
        failures_in_a_row -> Integer,
        last_attempt_status -> Nullable<Text>,
        last_attempt_at_ms -> Nullable<BigInt>,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    webhook_events (seq) {
        seq -> BigInt,
        id -> Text,
        shop_id -> Text,
        #[sql_name = "type"]
        event_type -> Text,
        resource -> Text,
        body -> Text,
        created_at_ms -> BigInt,
        log_position -> Nullable<BigInt>,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Text,
        shop_id -> Text,
        endpoint_id -> Text,
        event_seq -> BigInt,
        resource -> Text,
        status -> Text,
        attempts -> Integer,
        next_attempt_at_ms -> Nullable<BigInt>,
        created_at_ms -> BigInt,
        updated_at_ms -> BigInt,
    }
}

diesel::table! {
    webhook_attempts (id) {
        id -> Text,
        delivery_id -> Text,
        endpoint_id -> Text,
        attempt -> Integer,
        status -> Text,
        response_status -> Nullable<Integer>,
        duration_ms -> BigInt,
        error -> Nullable<Text>,
        response_excerpt -> Text,
        created_at_ms -> BigInt,
    }
}

diesel::table! {
    webhook_inflight (endpoint_id, resource) {
        endpoint_id -> Text,
        resource -> Text,
        claimed_by -> Text,
        claimed_until_ms -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    shops,
    api_keys,
    categories,
    brands,
    loyalty_tiers,
    products,
    product_search_suffixes,
    variants,
    stock_movements,
    idempotency_records,
    api_writes,
    loyalty_adjustments,
    clients,
    orders,
    order_items,
    lottery_tickets,
    spins,
    owners,
    owner_sessions,
    tracking_switches,
    webhook_endpoints,
    webhook_events,
    webhook_deliveries,
    webhook_attempts,
    webhook_inflight,
);
