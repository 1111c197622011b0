#!/usr/bin/env python3
"""json_validate.py SCHEMA_DIR --spool DIR | SCHEMA_DIR COMMAND FILE [EXIT_CODE]

Checks e4recover --json documents against doc/schema/COMMAND.schema.json
(e4recover-json(5)), and what a schema cannot say:
  - stdout is exactly one JSON document;
  - an error document comes with its exit code (error.code), 8 or more; a
    report with an exit code of 8 or more only when it says why (check:
    aborted; replay: replay_error);
  - every deprecated alias equals its new name, every *_hex string is its
    number in hex, diagnose's checksum is its checksum_version;
  - diagnose and logdump --diagnose count as problems the findings marked
    so, and exit 1 exactly when they count one (diagnose).

--spool DIR: the runs tests/tools/json_shim.sh kept (NAME.args, NAME.out,
NAME.rc); runs ended by a signal are not checked (their output is cut).
Prints one line per violation, then 'N documents, N violations'; exits 1 on
any violation, 2 when the checking itself cannot run.
"""
import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("json_validate.py: python3-jsonschema is not installed")
    sys.exit(2)

COMMANDS = ("check", "logdump", "replay", "diagnose")

# Deprecated alias -> its name in the one vocabulary, where both sit in the same object.
ALIASES = {
    "check": {"errors": "problems", "fixed": "problems_fixed", "errors_left": "problems_left"},
    "replay": {"error": "replay_error"},
}
FINDING_ALIASES = {"stored": "csum_stored", "computed": "csum_computed", "checksum_bits": "csum_bits"}
FC_TAIL_ALIASES = {"crc_ok": "csum_ok", "crc_stored": "csum_stored", "crc_computed": "csum_computed"}


def validators(schema_dir):
    """Per subcommand: the validator of the whole schema, and one per branch (report, error
    document, and the document of a filesystem without a journal where the subcommand has
    one), whose messages name the field at fault where the whole one's oneOf cannot."""
    out = {}
    for cmd in COMMANDS:
        with open(os.path.join(schema_dir, cmd + ".schema.json")) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        branch = {name: jsonschema.Draft202012Validator({"$ref": "#/$defs/" + name, "$defs": schema["$defs"]})
                  for name in ("report", "error_document", "no_journal", "salvage") if name in schema["$defs"]}
        out[cmd] = (jsonschema.Draft202012Validator(schema), branch)
    return out


def schema_errors(vals, doc):
    whole, branch = vals
    if whole.is_valid(doc):
        return []
    which = "report"
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
        which = "error_document"
    elif isinstance(doc, dict) and doc.get("has_journal") is False and "no_journal" in branch:
        which = "no_journal"
    elif isinstance(doc, dict) and "salvage" in doc and "salvage" in branch:
        which = "salvage"
    errors = ["%s: %s" % ("/".join(str(p) for p in err.absolute_path) or "(top)", err.message[:300])
              for err in branch[which].iter_errors(doc)]
    return errors or ["not valid under the schema"]


def walk(value):
    """Every object inside VALUE, VALUE included."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def same(obj, aliases, where, problems):
    for old, new in aliases.items():
        if old in obj and obj.get(new) != obj[old]:
            problems.append(f"{where}: deprecated {old}={obj[old]!r} but {new}={obj.get(new)!r}")


def semantics(cmd, doc, rc, problems):
    """What the schema cannot say. Appends to PROBLEMS."""
    if "error" in doc and isinstance(doc["error"], dict):
        if rc is not None and doc["error"].get("code") != rc:
            problems.append(f"error.code {doc['error'].get('code')} but the exit code is {rc}")
        return
    if rc is not None and rc >= 8:
        why = (cmd == "check" and (doc.get("aborted") or doc.get("halted") or
                                   (doc.get("writes") or {}).get("round_dropped"))) or \
            (cmd == "replay" and doc.get("replay_error"))
        if not why:
            problems.append(f"exit code {rc} with a report that gives no reason for it")
    same(doc, ALIASES.get(cmd, {}), "top level", problems)
    for o in walk(doc):
        for k, v in o.items():
            if k.endswith("_hex") and isinstance(o.get(k[:-4]), int) and v != "0x%08x" % o[k[:-4]]:
                problems.append(f"{k}={v!r} is not {k[:-4]}={o[k[:-4]]} in hex")
    findings = doc.get("findings") if cmd == "diagnose" else doc.get("diagnosis")
    for i, f in enumerate(findings or []):
        same(f, FINDING_ALIASES, f"finding {i}", problems)
    for i, t in enumerate(doc.get("fast_commit") or [] if cmd == "logdump" else []):
        same(t, FC_TAIL_ALIASES, f"fast_commit tag {i}", problems)
    if cmd == "diagnose" and "salvage" in doc:
        # diagnose --salvage: the damaged blocks, those with a usable copy; exit 1 when any is listed
        blocks = doc.get("salvage") or []
        usable = sum(1 for b in blocks if b.get("usable"))
        if doc.get("damaged") != len(blocks) or doc.get("usable") != usable:
            problems.append(f"damaged {doc.get('damaged')}, usable {doc.get('usable')} but "
                            f"{len(blocks)} blocks listed, {usable} usable")
        if any(bool(b.get("usable")) != ("journal_copy" in b) for b in blocks):
            problems.append("a block is usable exactly when it has a journal_copy")
        if rc is not None and rc < 8 and rc != (1 if blocks else 0):
            problems.append(f"exit code {rc} with {len(blocks)} damaged blocks")
        return
    if cmd == "diagnose" and doc.get("has_journal") is not False:
        v = doc.get("checksum_version")
        if doc.get("checksum") != ("v%d" % v if v else "none"):
            problems.append(f"checksum {doc.get('checksum')!r} but checksum_version {v}")
        counted = sum(1 for f in doc.get("findings", []) if f.get("problem"))
        # a log whose structure fails recovery as a whole is one problem more
        counted += 1 if doc.get("log_fault") else 0
        if doc.get("problems") != counted:
            problems.append(f"problems {doc.get('problems')} but {counted} findings are problems"
                            " (log_fault counted)")
        if rc is not None and rc < 8 and rc != (1 if counted else 0):
            problems.append(f"exit code {rc} with {counted} problems")


def check_one(vals, cmd, text, rc):
    """The violations of one run's stdout, as strings."""
    if cmd not in vals:
        return [f"no schema for subcommand {cmd!r}"]
    try:
        doc = json.loads(text)
    except ValueError as e:
        return [f"stdout is not one JSON document: {e}"]
    problems = schema_errors(vals[cmd], doc)
    if isinstance(doc, dict):
        semantics(cmd, doc, rc, problems)
    return problems


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    vals = validators(argv[1])
    runs = []   # (label, command, stdout, exit code)
    if argv[2] == "--spool":
        for args_file in sorted(glob.glob(os.path.join(argv[3], "*.args"))):
            base = args_file[:-5]
            try:
                with open(base + ".rc") as f:
                    rc = int(f.read())
            except (OSError, ValueError):
                continue  # still running when the test ended, or killed with its shim
            if rc > 128:
                continue
            with open(args_file, errors="replace") as f:
                args = f.read().splitlines()
            with open(base + ".out", errors="replace") as f:
                runs.append(("e4recover " + " ".join(args), args[0] if args else "", f.read(), rc))
    else:
        with open(argv[3], errors="replace") as f:
            runs.append((argv[3], argv[2], f.read(), int(argv[4]) if len(argv) > 4 else None))
    violations = 0
    for label, cmd, text, rc in runs:
        for p in check_one(vals, cmd, text, rc):
            violations += 1
            print(f"JSON VIOLATION: {label} (exit {rc}): {p}")
    print(f"{len(runs)} documents, {violations} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
