//! Catalogue data for the scenarios, in the import file format.

use serde_json::{Value, json};

/// A product with every field set, two variants (the second inactive) and known values.
pub fn full_product(id: &str) -> Value {
    json!({
        "id": id,
        "name": "Théière en fonte",
        "productType": "variable",
        "ean": "3760000000017",
        "sku": "THE-01",
        "priceCents": 4500,
        "listPriceCents": 5000,
        "compareAtPriceCents": 5000,
        "promoActive": true,
        "taxRate": "20.00",
        "active": true,
        "trackStock": true,
        "tags": ["cuisine", "thé"],
        "photos": ["https://cdn.example.com/the.jpg"],
        "category": {"id": "cat_kitchen", "name": "Cuisine"},
        "brand": {"id": "brand_fonte", "name": "Fonderie"},
        "createdAt": "2026-01-05T10:00:00.000Z",
        "updatedAt": "2026-02-01T08:30:15.250Z",
        "variants": [
            {"id": format!("{id}_black"), "label": "Noir", "sku": "THE-01-N", "barcode": "3760000000024",
             "swatchColor": "#000000", "priceCents": 4500, "stock": 7, "lowStockThreshold": 2,
             "isDefault": true, "active": true, "order": 0},
            {"id": format!("{id}_red"), "label": "Rouge", "sku": "THE-01-R", "barcode": "3760000000031",
             "swatchColor": "#aa0000", "priceCents": 4700, "stock": 3, "lowStockThreshold": 2,
             "isDefault": false, "active": false, "order": 1}
        ]
    })
}

/// A product with every optional field empty.
pub fn bare_product(id: &str, name: &str) -> Value {
    json!({
        "id": id, "name": name, "productType": "simple", "priceCents": 990, "taxRate": "5.50",
        "trackStock": false,
        "variants": [{"id": format!("{id}_v"), "label": "Unique", "priceCents": 990, "stock": 4}]
    })
}

pub fn products(list: Vec<Value>) -> Value {
    json!({"products": list})
}
