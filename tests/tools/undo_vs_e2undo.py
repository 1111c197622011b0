#!/usr/bin/env python3
"""undo_vs_e2undo.py E4RECOVER IMAGE...: does e2undo, given the undo file of
`e4recover replay --undo=FILE`, bring each image back to its exact bytes?

e2undo (e2fsprogs) is the oracle for the undo file's format. When the replay
changed the image, or succeeded, e2undo must accept the file and give back every
byte; when it refused before writing, the image must still be the input.
"""
import os
import shutil
import sys

import cases


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def compare(program, img, tmp):
    work, undo = tmp + "/work.img", tmp + "/replay.undo"
    shutil.copyfile(img, work)
    rc, out = cases.run([program, "replay", "--undo=" + undo, work])
    if cases.died(rc):
        return False, "replay died: %s" % rc
    if not os.path.exists(undo):
        return False, "replay wrote no undo file (exit %d)" % rc
    changed = not same_bytes(img, work)
    urc, uout = cases.run(["e2undo", undo, work])
    if not same_bytes(img, work):
        return False, "the image differs from the input after e2undo (exit %s)" % urc
    if (changed or rc in (0, 1)) and urc != 0:
        # A replay that succeeded leaves an undo file e2undo accepts, even one
        # with nothing to give back (it once left a corrupt header then).
        return False, "e2undo exited %s after replay exit %d: %s" % (urc, rc, uout.strip()[-200:])
    if not changed:
        # The replay refused (exit 8) before writing: e2undo's verdict is shown, not judged.
        return True, "the replay wrote nothing (replay exit %d, e2undo exit %s: %s)" % (
            rc, urc, (uout.strip().splitlines() or ["no message"])[-1])
    return True, "e2undo restored the input"


if __name__ == "__main__":
    sys.exit(cases.main(sys.argv, compare, "undo_vs_e2undo.py E4RECOVER IMAGE..."))
