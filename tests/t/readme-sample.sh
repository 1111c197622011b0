# The README's sample (make sample: tests/mksample.sh, then logdump, replay --dry-run and
# check -n) prints what the image holds. Its journal is written by debugfs, which stores
# the commit time's 32-bit seconds in the high half of the 64-bit field: logdump must
# show the date those bytes mean (read from the block with dd, dated by date(1)), not a
# count of seconds billions of years long. replay --dry-run and check -n exit as the
# README says, and check -n as e2fsck -n on the same image.
#
# Then every command line of the README's usage section, taken from README.md at test
# time: each synopsis is run bare and with each of its options in turn (every value the
# README lists for a policy or a checksum kind, a file or number made here for the
# others), on the sample or, for write, on a fresh mke2fs image. Each must be known
# (no usage error) and end as the oracle says: check as e2fsck with the same -n/-y/-p
# (and -f) on a copy; replay with exit 0, then e2fsck -fn clean, --policy=stop byte for
# byte e2fsck -E journal_only's image, none and --dry-run leaving it unchanged, and
# e2undo with the undo file giving the sample back; logdump with as many transactions as
# debugfs's logdump commits; diagnose with exit 0 (e2fsck replays the journal without a
# checksum complaint); write with exit 0 and a filesystem e2fsck -fy mends to clean.
# --journal=PATH needs an external journal (tests/t/field-external.sh runs it).
. "$E4R_TESTS_SRCDIR/lib.sh"

run sh "$E4R_TESTS_SRCDIR/mksample.sh" s.img
expect_rc 0 "tests/mksample.sh"
run "$E4R" logdump s.img
expect_rc 0 "logdump on the sample"
printf '%s\n' "$OUT" > ld.txt
expect_no_out "[0-9]{11,} s" "no commit time printed as a huge count of seconds"

# The first commit block's h_commit_sec, as bytes: the journal block logdump names.
jblk=$(sed -n 's/^  commit block \([0-9]*\),.*/\1/p' ld.txt | head -1)
[ -n "$jblk" ] || fail "logdump names no commit block"
fsblk=$(debugfs -R "bmap <8> $jblk" s.img 2>/dev/null)
bs=$(dumpe2fs -h s.img 2>/dev/null | sed -n 's/^Block size: *//p')
hex=$(dd if=s.img bs="$bs" skip="$fsblk" count=1 2>/dev/null | od -An -tx1 -j 48 -N 8 | tr -d ' \n')
[ "${#hex}" -eq 16 ] || fail "could not read h_commit_sec from block $fsblk"
hi=$((16#${hex:0:8})) lo=$((16#${hex:8:8}))
if [ "$lo" -eq 0 ] && [ "$hi" -ne 0 ]; then
	want=$(date -u -d "@$hi" '+%Y-%m-%d %H:%M:%S')
	grep -q "^  commit block $jblk, $want\.[0-9]* UTC (32-bit seconds in the high half" ld.txt ||
		fail "commit block $jblk: bytes $hex mean $want, logdump says: $(grep "commit block $jblk," ld.txt)"
else
	want=$(date -u -d "@$((16#$hex))" '+%Y-%m-%d %H:%M:%S')
	grep -q "^  commit block $jblk, $want\." ld.txt ||
		fail "commit block $jblk: bytes $hex mean $want, logdump says: $(grep "commit block $jblk," ld.txt)"
fi

run "$E4R" replay --dry-run s.img
expect_rc 0 "replay --dry-run on the sample"
expect_out "[Tt]ransaction" "the dry run lists the transactions"
run e2fsck -n s.img
want=$RC
run "$E4R" check -n s.img
expect_rc "$want" "check -n on the sample, as e2fsck -n"

# --- every command line of the README's usage section ---
ntx=$(debugfs -R "logdump" s.img 2>&1 | grep -c "(commit block)")
[ "$ntx" -ge 2 ] || fail "oracle: debugfs logdump shows $ntx commit blocks"
cp s.img e2.img
e2fsck -E journal_only -y e2.img >/dev/null 2>&1
run e2fsck -fn e2.img
expect_rc 0 "oracle: e2fsck replays the sample's journal to a clean filesystem"
python3 - "$E4R_TESTS_SRCDIR/../README.md" "$E4R" s.img e2.img "$ntx" "$E4R_TESTS_SRCDIR/tools" <<'PY' || fail "a README command line does not work as the README says"
import json, os, re, shutil, subprocess, sys
readme, e4r, sample, replayed, ntx, tools = sys.argv[1:4] + [sys.argv[4], int(sys.argv[5]), sys.argv[6]]
text = open(readme, encoding="utf-8").read()
usage = text[text.index("## Usage"):text.index("\n## ", text.index("## Usage") + 1)]
lines = [" ".join(m.split()) for m in re.findall(r"`(e4recover [^`]*)`", usage)]
lines += [l.strip() for l in usage.splitlines() if l.startswith("    e4recover ")]
policies = re.findall(r"^  - `([a-z-]+)`", usage, re.M)
assert len(policies) >= 7, policies
bad, runs = [], 0

def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)
    return p.returncode, p.stdout + p.stderr

def copy(src, dst):
    shutil.copyfile(src, dst)
    return dst

def same(a, b):
    return open(a, "rb").read() == open(b, "rb").read()

def same_replay(a, b):
    """Two replays of one image: equal but for the clock each stamps (tools/imgdiff.py)."""
    return sh([sys.executable, tools + "/imgdiff.py", a, b])[0] == 0

def variants(syn):
    """The synopsis bare, then with each bracketed option in turn, as word lists."""
    words = syn.split()
    groups = re.findall(r"\[([^\[\]]*(?:\[[^\]]*\][^\[\]]*)?)\]", syn)
    yield []
    for g in groups:
        # "-n|-y|-p" are alternatives; "--csum=none|v1|v2|v3" is one option's values
        parts = [x.strip() for x in g.split("|")]
        for alt in parts if all(x.startswith("-") for x in parts) else [g]:
            alt = alt.strip()
            # "-C FD", "--crash-after=N [--torn=BYTES]"
            yield re.sub(r"\[|\]", "", alt).split()

def concrete(opts, sub):
    """Values for the README's placeholders; None when the line cannot run here."""
    out = []
    for o in opts:
        if o.startswith("--journal="):
            return None
        o = o.replace("=P", "=%s").replace("=FILE", "=%s").replace("=SEQ", "=1").replace("=FSBLK", "=5000")
        o = o.replace("=N", "=20").replace("=S", "=1").replace("=BYTES", "=100")
        out.append(o)
    return out

def check_run(opts):
    mode = [o for o in opts if o in ("-n", "-y", "-p")]
    img = copy(sample, "c.img")
    ref = copy(sample, "c-e2.img")
    e_opts = mode + (["-f"] if "-f" in opts else [])
    if not mode:
        e_opts = ["-n"] + e_opts   # off a terminal check asks nothing: as -n
    e_rc, _ = sh(["e2fsck"] + e_opts + [ref])
    args = [o for o in opts]
    if "-C" in args:
        i = args.index("-C"); args[i + 1] = "2"
    for i, a in enumerate(args):
        if a.startswith("--undo="):
            args[i] = "--undo=c.undo"
            if os.path.exists("c.undo"): os.unlink("c.undo")
        if a.startswith("--policy="):
            args[i] = "--policy=stop"
    if "-n" in mode and any(a.startswith("--undo=") for a in args):
        return  # refused by design (16): -n writes nothing
    rc, out = sh([e4r, "check"] + args + [img], stdin=subprocess.DEVNULL)
    if rc != e_rc:
        bad.append("check %s: exit %d, e2fsck %s exit %d\n%s" % (" ".join(args), rc, " ".join(e_opts), e_rc, out[-800:]))
    if "--json" in args:
        try:
            json.loads(out[out.index("{"):])
        except ValueError:
            bad.append("check %s: no JSON document" % " ".join(args))

def replay_run(opts):
    for pol in policies if any(o.startswith("--policy=") for o in opts) else [None]:
        args = [o % pol if "%s" in o and o.startswith("--policy=") else o for o in opts]
        args = ["--undo=r.undo" if a.startswith("--undo=") else a for a in args]
        # the sample's journal has no failure to answer: an empty list, which changes nothing
        if any(a.startswith("--answers=") for a in args):
            with open("r.answers", "w") as f: f.write('{"answers": []}')
            args = ["--answers=r.answers" if a.startswith("--answers=") else a for a in args]
        if os.path.exists("r.undo"): os.unlink("r.undo")
        img = copy(sample, "r.img")
        rc, out = sh([e4r, "replay"] + args + [img], stdin=subprocess.DEVNULL)
        what = "replay " + " ".join(args)
        if rc != 0:
            bad.append("%s: exit %d\n%s" % (what, rc, out[-800:])); continue
        if "--dry-run" in args or pol == "none":
            if not same(img, sample): bad.append(what + ": wrote to the image")
            continue
        e_rc, e_out = sh(["e2fsck", "-fn", img])
        if e_rc != 0: bad.append("%s: e2fsck -fn exit %d after it" % (what, e_rc))
        if pol in (None, "stop", "auto", "skip-block", "skip-transaction", "all") and not same_replay(img, replayed):
            bad.append(what + ": the image is not e2fsck -E journal_only's")
        if any(a.startswith("--undo=") for a in args):
            rc2, out2 = sh(["e2undo", "r.undo", img])
            if rc2 != 0 or not same(img, sample):
                bad.append("%s: e2undo with the undo file did not give the sample back\n%s" % (what, out2))

def logdump_run(opts):
    args = opts
    rc, out = sh([e4r, "logdump"] + args + [sample])
    what = "logdump " + " ".join(args)
    if rc != 0:
        bad.append("%s: exit %d\n%s" % (what, rc, out[-800:])); return
    if "--json" in args:
        n = len(json.loads(out)["transactions"])
    else:
        n = len(re.findall(r"^Transaction \d+", out, re.M))
    if "--transaction=1" in args:
        if n != 1: bad.append("%s: %d transactions shown, want 1" % (what, n))
    elif "--block=5000" in args:
        if "--json" not in args and not re.search(r"^Filesystem block 5000", out, re.M):
            bad.append(what + ": no versions of block 5000")
    elif n != ntx:
        bad.append("%s: %d transactions, debugfs logdump commits %d" % (what, n, ntx))

def diagnose_run(opts):
    rc, out = sh([e4r, "diagnose"] + opts + [sample])
    what = "diagnose " + " ".join(opts)
    if rc != 0:
        bad.append("%s: exit %d\n%s" % (what, rc, out[-800:]))
    elif "--json" in opts and json.loads(out).get("problems") != 0:
        bad.append(what + ": problems in an intact journal")

def write_run(opts):
    args = []
    for o in opts:
        if o.startswith("--script="):
            open("w.script", "w").write("mkdir /a\ncreate /a/f 5000\ncommit\nlink /a/f /g\n")
            o = "--script=w.script"
        if o.startswith("--dump-script="):
            o = "--dump-script=w.dump"
        if o.startswith("--csum="):
            for kind in o.split("=", 1)[1].split("|"):
                write_one(args + ["--ops=20", "--seed=1", "--csum=" + kind])
            return
        args.append(o)
    if not any(a.startswith(("--ops", "--script")) for a in args):
        args += ["--ops=20", "--seed=1"]
    write_one(args)

def write_one(args):
    what = "write " + " ".join(args)
    sh(["mke2fs", "-q", "-F", "-t", "ext4", "w.img", "16M"])
    rc, out = sh([e4r, "write"] + args + ["w.img"])
    if rc != 0:
        bad.append("%s: exit %d\n%s" % (what, rc, out[-800:])); return
    sh(["e2fsck", "-fy", "w.img"])
    e_rc, e_out = sh(["e2fsck", "-fn", "w.img"])
    if e_rc != 0: bad.append("%s: e2fsck -fn exit %d after e2fsck -fy\n%s" % (what, e_rc, e_out[-500:]))

run_of = {"check": check_run, "replay": replay_run, "logdump": logdump_run,
          "diagnose": diagnose_run, "write": write_run}
seen = set()
for syn in lines:
    w = syn.split()
    if w[1] == "SUBCOMMAND":
        continue
    if w[1] == "--help":     # e4recover --help | --version | SUBCOMMAND --help
        for cmd in [["--help"], ["--version"]] + [[s, "--help"] for s in run_of]:
            rc, out = sh([e4r] + cmd); runs += 1
            if rc != 0: bad.append("e4recover %s: exit %d" % (" ".join(cmd), rc))
        continue
    sub = w[1]
    seen.add(sub)
    for v in variants(syn):
        opts = concrete(v, sub)
        if opts is None:
            continue
        runs += 1
        run_of[sub](opts)
missing = set(run_of) - seen
if missing:
    bad.append("the usage section has no command line for %s" % ", ".join(sorted(missing)))
print("# %d README command lines run" % runs)
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad or runs < 30 else 0)
PY
exit 0
