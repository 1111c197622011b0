#!/usr/bin/env python3
"""replay_vs_e2fsck.py E4RECOVER IMAGE...: does `e4recover replay --policy=stop`
leave each image as `e2fsck -E journal_only -y` does?

Each runs on its own copy; the two results must match block for block, the
superblock's time stamps aside (imgdiff.py).
"""
import shutil
import sys

import cases
import imgdiff


def compare(program, img, tmp):
    ref, ours = tmp + "/e2fsck.img", tmp + "/ours.img"
    shutil.copyfile(img, ref)
    shutil.copyfile(img, ours)
    rc, _ = cases.run(["e2fsck", "-E", "journal_only", "-y", ref])
    if cases.died(rc):
        return False, "e2fsck died: %s" % rc
    rc, out = cases.run([program, "replay", "--policy=stop", ours])
    if cases.died(rc):
        return False, "replay died: %s" % rc
    diff = imgdiff.differences(ref, ours)
    if diff:
        return False, "%d differences from e2fsck's replay, first: %s" % (len(diff), diff[0])
    return True, "identical to e2fsck's replay (replay exit %d)" % rc


if __name__ == "__main__":
    sys.exit(cases.main(sys.argv, compare, "replay_vs_e2fsck.py E4RECOVER IMAGE..."))
