/* e4recover's entry point: the program is recover_main (dispatch.c), so tests can wrap it. */
#include "config.h"

#include "commands.h"

int main(int argc, const char **argv)
{
	return recover_main(argc, argv);
}
