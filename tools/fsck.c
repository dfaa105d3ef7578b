/* placeholder until the checker lands */
#include "tools/commands.h"
int cmd_fsck(int argc, char **argv)
{
	tool_error("fsck: not built yet");
	return 2;
}
