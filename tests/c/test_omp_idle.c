/* The threads' idle time in parallel regions (hp_omp_idle.h): an execution's split in closed form, one thread's
 * imbalance exactly 0, a real region's team, and nothing recorded while disabled. */
#include "check.h"
#include "hp_omp_idle.h"

int main(void)
{
    hp_omp_idle o;
    hp_omp_idle_init(&o);
    CHECK(o.enabled == 0 && o.regions == 0.0 && o.imbalance == 0.0 && o.scheduling == 0.0);

    /* busy 1 s and 3 s in a 4 s region: max - mean = 3 - 2, region - max = 4 - 3 */
    if (omp_get_max_threads() >= 2) {
        o.slot[0].busy = 1.0;
        o.slot[1].busy = 3.0;
        o.team = 2;
        hp_omp_idle_add(&o, 4.0);
        CHECK(o.regions == 4.0 && o.imbalance == 1.0 && o.scheduling == 1.0);
    }
    /* one thread: its busy time is the max and the mean */
    hp_omp_idle one;
    hp_omp_idle_init(&one);
    one.slot[0].busy = 0.1;
    one.team = 1;
    hp_omp_idle_add(&one, 0.3);
    CHECK(one.imbalance == 0.0 && one.scheduling == 0.3 - 0.1 && one.regions == 0.3);
    /* a region shorter than its slowest thread's clock (clock reads of different threads): no negative loss */
    one.slot[0].busy = 0.5;
    hp_omp_idle_add(&one, 0.4);
    CHECK(one.scheduling == 0.3 - 0.1 && one.imbalance == 0.0);

    /* a real region: the team is the one that ran it, an `if (0)` region's is 1 and has no imbalance */
    hp_omp_idle real;
    hp_omp_idle_init(&real);
    real.enabled = 1;
    for (int parallel = 1; parallel >= 0; parallel--) {
        const double before = real.imbalance;
        int team = 0;
        hp_omp_idle_begin(&real);
#pragma omp parallel if (parallel)
        {
            hp_omp_idle_enter(&real);
#pragma omp single nowait
            team = omp_get_num_threads();
            hp_omp_idle_done(&real);
        }
        hp_omp_idle_end(&real);
        CHECK(real.team == team && (parallel || (team == 1 && real.imbalance == before)));
        CHECK(real.imbalance >= 0.0 && real.scheduling >= 0.0 && real.imbalance + real.scheduling <= real.regions);
    }
    CHECK(real.regions > 0.0);

    /* disabled: no clock is read, nothing is added */
    real.enabled = 0;
    const double regions = real.regions;
    hp_omp_idle_begin(&real);
#pragma omp parallel
    {
        hp_omp_idle_enter(&real);
        hp_omp_idle_done(&real);
    }
    hp_omp_idle_end(&real);
    CHECK(real.regions == regions);

    hp_omp_idle_free(&o);
    hp_omp_idle_free(&one);
    hp_omp_idle_free(&real);
    return CHECK_DONE();
}
