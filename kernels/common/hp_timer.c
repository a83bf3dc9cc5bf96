/* Region registration; the hot start/stop pair is inline in hp_timer.h. */
#include "hp_timer.h"

#include <stdlib.h>
#include <string.h>

void hp_timers_init(hp_timers *t, int enabled)
{
    memset(t, 0, sizeof *t);
    t->enabled = enabled;
}

int hp_timer_add(hp_timers *t, const char *name)
{
    if (t->count == HP_MAX_REGIONS) abort(); /* a programming error, not an input error */
    t->region[t->count].name = name;
    return t->count++;
}
