"""The shop every scenario adjusts: a few tracked products with known starting stock."""

import random

PRODUCTS = 4
VARIANTS_PER_PRODUCT = 2


def tracked_catalogue() -> tuple[dict, dict[str, int]]:
    """The import file and each variant's initial stock."""
    initial: dict[str, int] = {}
    products = []
    for p in range(PRODUCTS):
        variants = []
        for v in range(VARIANTS_PER_PRODUCT):
            variant_id = f"fault_var_{p}_{v}"
            initial[variant_id] = 100 * (p + 1) + v
            variants.append({"id": variant_id, "label": f"V{v}", "priceCents": 1000,
                             "stock": initial[variant_id], "lowStockThreshold": 1})
        products.append({"id": f"fault_prod_{p}", "name": f"Produit {p}", "priceCents": 1000,
                         "taxRate": "20.00", "trackStock": True, "variants": variants})
    return {"products": products}, initial


def random_delta(rng: random.Random) -> int:
    """A non-zero change either way (stock may go below zero, as the API allows)."""
    return rng.choice([-1, 1]) * rng.randint(1, 9)


def wide_catalogue(variants: int, per_product: int = 2, prefix: str = "wh") -> tuple[dict, dict[str, int]]:
    """An import file with `variants` tracked variants (`per_product` to a product), and each
    variant's initial stock: the webhook scenarios' many distinct resources."""
    initial: dict[str, int] = {}
    products = []
    for p in range((variants + per_product - 1) // per_product):
        rows = []
        for v in range(min(per_product, variants - p * per_product)):
            variant_id = f"{prefix}_var_{p:05}_{v}"
            initial[variant_id] = 50 + (p + v) % 50
            rows.append({"id": variant_id, "label": f"V{v}", "priceCents": 1000,
                         "stock": initial[variant_id], "lowStockThreshold": 1})
        products.append({"id": f"{prefix}_prod_{p:05}", "name": f"Produit {p}", "priceCents": 1000,
                         "taxRate": "20.00", "trackStock": True, "variants": rows})
    return {"products": products}, initial
