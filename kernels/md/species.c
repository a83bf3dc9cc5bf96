/* Units, atom types and masses.
 *
 * The potential decides the units, as a LAMMPS input's `units` line does for its pair style: the
 * Lennard-Jones potentials run in reduced units with one atom type of mass 1; the embedded-atom
 * potentials in `metal` units, with as many types as --elements names. Masses follow LAMMPS's order
 * of precedence: an eam/fs file carries a mass per element, and `pair_coeff` sets the types' masses
 * from it whatever the data file's Masses section says (eam.c); a .tersoff file carries none, so they come
 * from the data file's Masses, or for a lattice from the standard atomic weights of the elements below.
 * Each potential's table names its rule; the rules shared by several potentials are here. */
#include <string.h>

#include "md.h"

/* LAMMPS's constants (update.cpp, "lj" and "metal"), so both codes convert alike to the last digit. */
const md_units md_units_lj = {"lj", 1.0, 1.0, 1.0, 1.0};
const md_units md_units_metal = {"metal", 8.617343e-5, 1.0364269e-4, 1.0 / 1.0364269e-4, 1.6021765e6};

/* Standard atomic weights (IUPAC 2007, the values LAMMPS examples use) of the elements the shipped
 * .tersoff files describe. */
static const struct {
    const char *name;
    double mass;
} weights[] = {{"B", 10.811}, {"C", 12.0107}, {"N", 14.0067}, {"O", 15.9994}, {"Si", 28.0855},
               {"Ga", 69.723}, {"Ge", 72.64}};

static double standard_weight(const char *element)
{
    for (size_t k = 0; k < sizeof weights / sizeof *weights; k++)
        if (strcmp(weights[k].name, element) == 0) return weights[k].mass;
    return 0.0;
}

static int fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s", what);
    return -1;
}

int md_species_reduced(md_sim *s, const md_data *file, char *err, size_t errlen)
{
    if (s->species.ntypes != 1)
        return fail(err, errlen, "Lennard-Jones runs in reduced units with one atom type ('1 atom types')");
    if (file && file->mass[1] > 0.0 && file->mass[1] != 1.0)
        return fail(err, errlen, "Lennard-Jones runs in reduced units: the data file's mass must be 1");
    s->species.mass[1] = 1.0;
    return 0;
}

/* One element per type, as pair_coeff * * FILE E1 E2 ... maps them. */
int md_species_one_per_type(const md_sim *s, char *err, size_t errlen)
{
    const int named = s->p.elements.n, types = s->species.ntypes;
    if (named != types) {
        snprintf(err, errlen, "the %s has %d atom type%s but --elements names %d (one element per type, as "
                 "pair_coeff * * FILE E1 E2 ... in LAMMPS)", s->p.read_data ? "data file" : "lattice", types,
                 types > 1 ? "s" : "", named);
        return -1;
    }
    return 0;
}

int md_species_weights(md_sim *s, const md_data *file, char *err, size_t errlen)
{
    if (md_species_one_per_type(s, err, errlen)) return -1;
    for (int t = 1; t <= s->species.ntypes; t++) {
        const char *element = s->p.elements.item[t - 1];
        s->species.mass[t] = file ? file->mass[t] : standard_weight(element);
        if (s->species.mass[t] > 0.0) continue;
        if (file)
            snprintf(err, errlen, "the data file gives no mass for atom type %d (%s): .tersoff files carry none, add "
                     "a Masses section", t, element);
        else
            snprintf(err, errlen, "no standard atomic weight known here for %s: start from a data file with Masses",
                     element);
        return -1;
    }
    return 0;
}

int md_species_setup(md_sim *s, md_data *file, char *err, size_t errlen)
{
    s->species.ntypes = s->p.read_data ? file->ntypes : md_lattice_types(s->p.lattice);
    const md_data *from_file = s->p.read_data ? file : NULL;
    int ok = s->p.potential->species(s, from_file, err, errlen) == 0;
    s->halo.build_width = s->species.ntypes > 1 ? 4 : 3;
    return hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err) ? -1 : 0;
}
