# diagnose on journals the kernel wrote (mkcrash.py: v1, v1async, v3, v3async), each damaged
# by flipbit.py in a data block of a committed transaction: diagnose must name the exact
# journal block, byte and bit; then two bits in one block. The oracle is the flip made;
# e2fsck confirms the damage where it reports it (async commits may drop it silently).
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
for v in v1 v1async v3 v3async; do
	for seed in 21 22; do
		with_sync_lock -x python3 "$E4R_TESTS_TOOLS/mkcrash.py" "$v-$seed.img" "$seed" "$v" > "$v-$seed.log" 2>&1 || {
			[ "$v" = v1 ] && [ "$seed" = 21 ] &&
				skip "mkcrash.py could not loop-mount an image: $(tail -n 1 "$v-$seed.log")"
			fail "mkcrash.py $v $seed: $(tail -n 3 "$v-$seed.log")"
		}
	done
done

cat > trials.py <<'PYEOF'
import json, random, shutil, subprocess, sys
e4r, tools, images = sys.argv[1], sys.argv[2], sys.argv[3:]

def sh(*a):
    return subprocess.run(a, capture_output=True, text=True)

def committed(img):
    d = json.loads(sh(e4r, "logdump", "--json", img).stdout)
    last = max([t["sequence"] for t in d["transactions"] if t["committed"] and not t["old"]] or [None])
    return {t["sequence"] for t in d["transactions"] if t["committed"] and not t["old"]}, last

def flips_of(f):
    return [sorted((x["journal_block"], x["byte"], x["bit"]) for x in c["flips"])
            for c in f["search"]["candidates"]]

def e2fsck_sees(img):
    shutil.copy(img, "oracle.img")
    out = sh("e2fsck", "-E", "journal_only", "-y", "oracle.img")
    return "corrupt" in out.stdout + out.stderr or "checksum error" in out.stdout + out.stderr

stats = {"single": 0, "single_exact": 0, "as_leak": 0, "pair": 0, "pair_found": 0, "pair_unique": 0,
         "skipped": 0, "e2fsck_checked": 0}
bad = 0
for img in images:
    seqs, last = committed(img)
    async_ = "async" in img
    bs = int(sh("sh", "-c", "dumpe2fs -h %s 2>/dev/null | sed -n 's/^Block size: *//p'" % img).stdout)
    for trial in range(3):
        shutil.copy(img, "t.img")
        fl = json.loads(sh("python3", tools + "/flipbit.py", "t.img", str(100 * trial + 7)).stdout)
        if "error" in fl or fl["sequence"] not in seqs:
            stats["skipped"] += 1        # no logged block, or an uncommitted transaction
            continue
        want = [(fl["journal_block"], fl["byte"], fl["bit"])]
        pair = trial == 2
        if pair:
            rng = random.Random(trial)
            byte2 = (fl["byte"] + 1 + rng.randrange(bs - 1)) % bs
            bit2 = rng.randrange(8)
            with open("t.img", "r+b") as f:
                f.seek(fl["phys"] * bs + byte2); b = f.read(1)
                f.seek(fl["phys"] * bs + byte2); f.write(bytes([b[0] ^ (1 << bit2)]))
            want = sorted(want + [(fl["journal_block"], byte2, bit2)])
        r = sh(e4r, "diagnose", "--json", "t.img")
        d = json.loads(r.stdout)
        fs = [f for f in d["findings"] if f["sequence"] == fl["sequence"]]
        ok = r.returncode == 1 and len(fs) == 1
        if pair:
            stats["pair"] += 1
            found = ok and want in flips_of(fs[0])
            stats["pair_found"] += found
            stats["pair_unique"] += found and fs[0]["search"]["proven"]
            # more fits than listed: the truth may be beyond the list (reported, not a failure)
            if ok and not found and fs[0]["search"]["fits"] > len(fs[0]["search"]["candidates"]):
                found = True
            ok = found and fs[0]["search"]["weight"] == 2
        else:
            stats["single"] += 1
            # A flip that sets a bitmap bit a later transaction sets too is, to the
            # checksum, the same bytes as the unjournaled-modification leak: either name
            # is right if the bit is the one flipped.
            leak = fs[0]["evidence"].get("leak") if ok else None
            ok = ok and flips_of(fs[0]) == [want] and fs[0]["search"]["proven"] and \
                (fs[0]["cause"] == "bit_flip" or (fs[0]["cause"] == "unjournaled_modification"
                                                  and len(leak["bits"]) == 1))
            stats["as_leak"] += ok and fs[0]["cause"] != "bit_flip"
            stats["single_exact"] += ok
        if not (async_ and fl["sequence"] == last):
            stats["e2fsck_checked"] += 1
            if not e2fsck_sees("t.img"):
                print("%s trial %d: e2fsck does not report the damage" % (img, trial)); bad += 1
        if not ok:
            bad += 1
            print("%s trial %d: flipped %s, diagnose said %s" % (img, trial, want,
                  [(f["sequence"], f["object"], f["cause"], flips_of(f)[:3]) for f in d["findings"]]))
print(json.dumps(stats))
sys.exit(1 if bad or stats["single"] < len(images) else 0)
PYEOF
run python3 trials.py "$E4R" "$E4R_TESTS_TOOLS" v1-21.img v1-22.img v1async-21.img v1async-22.img \
	v3-21.img v3-22.img v3async-21.img v3async-22.img
expect_rc 0 "every flipped bit located exactly"
exit 0
