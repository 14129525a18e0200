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
echo "ok: $count snippet(s) ran"
