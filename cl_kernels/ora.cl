/*
 * Over-representation analysis (oclstat.ora): the overlap of every gene list with every gene
 * set, from bit vectors over the universe (bit g of word g / 32: gene g is in it).
 *
 *   ora_overlap   work-item (set s, list l): overlap[l * n_sets + s] is the number of genes in
 *                 both, the popcount of the AND of their words. The sets' words are word-major
 *                 (sets[w * n_sets + s]: neighbouring work-items read neighbouring words), a
 *                 list's words are shared by the work-group (the same address for every item).
 *
 * Counts are exact integers: the same on every device.
 */

__kernel void ora_overlap(__global const uint *lists, __global const uint *sets,
                          const uint n_words, const uint n_lists, const uint n_sets,
                          __global uint *overlap)
{
    const uint s = get_global_id(0), l = get_global_id(1);
    if (s >= n_sets || l >= n_lists) return;
    __global const uint *mine = lists + (ulong)l * n_words;
    uint count = 0u;
    for (uint w = 0; w < n_words; w++)
        count += popcount(mine[w] & sets[(ulong)w * n_sets + s]);
    overlap[(ulong)l * n_sets + s] = count;
}
