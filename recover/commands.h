/* The subcommands, one file each (cmd_*.c). */
#ifndef E4R_COMMANDS_H
#define E4R_COMMANDS_H

/* The whole program (dispatch.c): a test build wraps it with a faulty io manager. */
int recover_main(int argc, const char **argv);

int cmd_check(int argc, const char **argv);
int cmd_logdump(int argc, const char **argv);
int cmd_replay(int argc, const char **argv);
int cmd_diagnose(int argc, const char **argv);
int cmd_write(int argc, const char **argv);

#endif
