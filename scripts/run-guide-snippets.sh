#!/usr/bin/env bash
# Runs every ```sh block of a Markdown guide, in order, in one shell, against a live server
# ($SHOP_API and $SHOP_API_KEY), failing on the first block that fails: the guide cannot rot.
set -euo pipefail
GUIDE=${1:?usage: run-guide-snippets.sh GUIDE.md}
: "${SHOP_API:?}" "${SHOP_API_KEY:?}"
SCRIPT=$(mktemp)
trap 'rm -f "$SCRIPT"' EXIT
python3 - "$GUIDE" >"$SCRIPT" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)
if not blocks:
    sys.exit("no ```sh block found")
print("set -euo pipefail")
for n, block in enumerate(blocks, 1):
    print(f"echo '--- snippet {n}' >&2")
    print(block)
PY
count=$(grep -c "^echo '--- snippet" "$SCRIPT")
bash "$SCRIPT"
echo "ok: $count sh snippet(s) ran"

# Rust snippets: each ```rust block names its example file on its first line; the block must
# be that file, byte for byte, and the example must run against the server.
python3 - "$GUIDE" <<'PY' | while read -r example; do
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
for block in re.findall(r"^```rust\n(.*?)^```", text, flags=re.S | re.M):
    first = block.splitlines()[0]
    path = first.removeprefix("// ").strip()
    if not path.startswith("crates/client/examples/"):
        sys.exit(f"a rust block does not name its example file: {first!r}")
    if open(path, encoding="utf-8").read() != block:
        sys.exit(f"{path} differs from its copy in {sys.argv[1]}")
    print(path.rsplit("/", 1)[1].removesuffix(".rs"))
PY
    echo "--- example $example" >&2
    cargo run --quiet -p shop-api-client --example "$example"
done
echo "ok: rust examples match the guide and ran"
