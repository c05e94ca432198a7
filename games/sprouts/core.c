/* The Sprouts solver's hot path in C: the options of one component, reduced, split into components and
 * keyed. It does exactly what solver.py's options() does (the pure Python reference the tests compare it
 * with), except that a component's key is a cheap canonical form of its own (below) instead of the exact
 * one: equal keys are always the same component, and the same component met by another route mostly gets
 * the same key (both mirror images are keyed and the least kept).
 *
 * Key format (bytes): a spot met once is 0xF0 + its lives (0xF1..0xF3); a spot met twice or more (one
 * life) is its number 0, 1, 2... in order of first appearance; 0xFD ends a boundary, 0xFE a region.
 * A game is its components' keys in increasing order, each followed by 0xFF; a list of options is games
 * each followed by 0xFC.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 1024   /* spot occurrences in one position */
#define MAXB 256    /* boundaries */
#define MAXR 96     /* regions */
#define MAXV 512    /* spot ids */
/* What a position may hold (larger ones are refused, sp_* return -1): every move adds a few tokens, one
 * boundary and one region at most, so each table above keeps room for one move's result. */
#define MAX_TOKENS 300
#define MAX_BOUNDARY 300
#define MAX_BOUNDARIES 150
#define MAX_REGIONS 60
#define MAX_SPOTS 300
#define END_B (-1)
#define END_R (-2)
#define ANON 0xF0
#define B_END 0xFD
#define R_END 0xFE
#define C_END 0xFF
#define OPTION_END 0xFC

/* ---------- output: every option once ---------- */
static uint8_t *out_buf = NULL;
static size_t out_len = 0, out_cap = 0;
typedef struct { size_t off; int len, largest; } Rec;  /* largest: its largest component's size */
static Rec *recs = NULL;
static size_t nrecs = 0, recs_cap = 0;

static void out_reserve(size_t extra) {
    if (out_len + extra > out_cap) {
        out_cap = (out_len + extra) * 2 + 4096;
        out_buf = realloc(out_buf, out_cap);
    }
}

/* ---------- the position being keyed: a flat list of spot ids, END_B and END_R ---------- */
static int lives[MAXV];
static int stamp[MAXV], stamp_now = 0;

static int uf_parent[MAXV];
static int uf_find(int x) {
    while (uf_parent[x] != x) { uf_parent[x] = uf_parent[uf_parent[x]]; x = uf_parent[x]; }
    return x;
}

typedef struct { int start, len; } Span;

/* One reduced region: its boundaries (spans into rspots). */
static int rspots[MAXT];
static Span rb[MAXB];
static int reg_b0[MAXR], reg_nb[MAXR], reg_comp[MAXR];

/* Shapes and the component key being built. */
typedef struct { uint8_t shape[MAXT / 2]; int len, rot, b; } Shaped;

static int cmp_bytes(const uint8_t *a, int la, const uint8_t *b, int lb) {
    int n = la < lb ? la : lb;
    int c = memcmp(a, b, n);
    if (c) return c;
    return la - lb;
}

static Shaped shaped[MAXB];
static int counts[MAXV];

/* Sorted through pointers: the structures are large. */
static Shaped *shaped_order[MAXB];
static int cmp_shaped(const void *x, const void *y) {
    const Shaped *a = *(Shaped *const *)x, *b = *(Shaped *const *)y;
    int c = cmp_bytes(a->shape, a->len, b->shape, b->len);
    return c ? c : a->b - b->b;  /* stable: generation order */
}

typedef struct { int first, n; uint8_t sig[MAXT]; int siglen; } RegOrder;
static RegOrder regorder[MAXR], *region_order[MAXR];
static int cmp_regorder(const void *x, const void *y) {
    const RegOrder *a = *(RegOrder *const *)x, *b = *(RegOrder *const *)y;
    int c = cmp_bytes(a->sig, a->siglen, b->sig, b->siglen);
    return c ? c : a->first - b->first;
}

/* The key of the component made of regions comps[0..ncomp), in one orientation (reversed: mirror). */
static int component_key(const int *regs, int nregs, int reversed, uint8_t *key) {
    int nshaped = 0;
    for (int r = 0; r < nregs; r++) {
        int reg = regs[r];
        regorder[r].first = nshaped;
        regorder[r].n = reg_nb[reg];
        for (int k = 0; k < reg_nb[reg]; k++) {
            Span s = rb[reg_b0[reg] + k];
            Shaped *sh = &shaped[nshaped];
            uint8_t raw[MAXT];  /* the lives pattern twice over: every rotation is a slice (no division) */
            for (int i = 0; i < s.len; i++) {
                int spot = rspots[s.start + (reversed ? s.len - 1 - i : i)];
                raw[i] = raw[i + s.len] = counts[spot] == 1 ? (uint8_t)(ANON + lives[spot]) : 0;
            }
            /* least rotation of the lives pattern; the first such cut on ties */
            int best = 0;
            for (int i = 1; i < s.len; i++)
                if (raw[i] <= raw[best] && memcmp(raw + i, raw + best, s.len) < 0) best = i;
            memcpy(sh->shape, raw + best, s.len);
            sh->len = s.len;
            sh->rot = best;
            sh->b = reg_b0[reg] + k;
            shaped_order[nshaped] = sh;
            nshaped++;
        }
        qsort(&shaped_order[regorder[r].first], regorder[r].n, sizeof(Shaped *), cmp_shaped);
        int len = 0;
        for (int k = 0; k < regorder[r].n; k++) {
            Shaped *sh = shaped_order[regorder[r].first + k];
            memcpy(regorder[r].sig + len, sh->shape, sh->len);
            len += sh->len;
            regorder[r].sig[len++] = B_END;
        }
        regorder[r].siglen = len;
        region_order[r] = &regorder[r];
    }
    qsort(region_order, nregs, sizeof(RegOrder *), cmp_regorder);
    int number[MAXV];
    stamp_now++;
    int next = 0, n = 0;
    for (int r = 0; r < nregs; r++) {
        for (int k = 0; k < region_order[r]->n; k++) {
            Shaped *sh = shaped_order[region_order[r]->first + k];
            Span s = rb[sh->b];
            for (int i = 0, pos = sh->rot; i < s.len; i++, pos = pos + 1 == s.len ? 0 : pos + 1) {
                int spot = rspots[s.start + (reversed ? s.len - 1 - pos : pos)];
                if (counts[spot] == 1) {
                    key[n++] = (uint8_t)(ANON + lives[spot]);
                } else {
                    if (stamp[spot] != stamp_now) { stamp[spot] = stamp_now; number[spot] = next++; }
                    key[n++] = (uint8_t)number[spot];
                }
            }
            key[n++] = B_END;
        }
        key[n++] = R_END;
    }
    return n;
}

typedef struct { uint8_t *key; int len; } Comp;
static int cmp_comp(const void *x, const void *y) {
    const Comp *a = x, *b = y;
    return cmp_bytes(a->key, a->len, b->key, b->len);
}

/* Reduce, split and key the position in `flat` (spot ids, END_B, END_R) with `lives`; append the game. */
static void emit_game(const int *flat, int flen, int nspots) {
    int ns = 0, nb = 0, nr = 0;
    int i = 0;
    while (i < flen) {
        /* one region */
        int b0 = nb, s0 = ns;
        int spare = 0;
        stamp_now++;
        while (flat[i] != END_R) {
            int start = ns;
            while (flat[i] != END_B) {
                int spot = flat[i++];
                if (lives[spot] > 0 && (ns == start || rspots[ns - 1] != spot)) {
                    rspots[ns++] = spot;
                    if (stamp[spot] != stamp_now) { stamp[spot] = stamp_now; spare += lives[spot]; }
                }
            }
            i++;
            if (ns - start > 1 && rspots[start] == rspots[ns - 1]) ns--;  /* neighbours across the cut */
            if (ns > start) { rb[nb].start = start; rb[nb].len = ns - start; nb++; }
        }
        i++;
        if (spare < 2) { nb = b0; ns = s0; continue; }
        if (spare <= 3) {
            /* Glop: in a region with 3 lives or fewer only which live spots it holds matters. */
            int distinct[8], nd = 0;
            for (int k = s0; k < ns; k++) {
                int spot = rspots[k], seen = 0;
                for (int d = 0; d < nd; d++) if (distinct[d] == spot) seen = 1;
                if (!seen) distinct[nd++] = spot;
            }
            ns = s0; nb = b0;
            for (int d = 0; d < nd; d++) { rspots[ns] = distinct[d]; rb[nb].start = ns; rb[nb].len = 1; ns++; nb++; }
        }
        reg_b0[nr] = b0; reg_nb[nr] = nb - b0; nr++;
    }
    /* components: regions sharing a spot */
    for (int v = 0; v < nspots; v++) { uf_parent[v] = v; counts[v] = 0; }
    for (int r = 0; r < nr; r++) {
        int first = rspots[rb[reg_b0[r]].start];
        for (int k = 0; k < reg_nb[r]; k++) {
            Span s = rb[reg_b0[r] + k];
            for (int j = 0; j < s.len; j++) {
                int a = uf_find(first), b = uf_find(rspots[s.start + j]);
                if (a != b) uf_parent[a] = b;
                counts[rspots[s.start + j]]++;
            }
        }
    }
    for (int r = 0; r < nr; r++) reg_comp[r] = uf_find(rspots[rb[reg_b0[r]].start]);
    static uint8_t keys[2 * MAXT * 2];
    Comp comps[MAXR];
    int ncomp = 0, used = 0, done[MAXR] = {0};
    for (int r = 0; r < nr; r++) {
        if (done[r]) continue;
        int regs[MAXR], n = 0;
        for (int q = r; q < nr; q++) if (!done[q] && reg_comp[q] == reg_comp[r]) { regs[n++] = q; done[q] = 1; }
        uint8_t a[MAXT * 2], b[MAXT * 2];
        int la = component_key(regs, n, 0, a), lb = component_key(regs, n, 1, b);
        uint8_t *best = a; int lbest = la;
        if (cmp_bytes(b, lb, a, la) < 0) { best = b; lbest = lb; }
        memcpy(keys + used, best, lbest);
        comps[ncomp].key = keys + used; comps[ncomp].len = lbest; ncomp++;
        used += lbest;
    }
    qsort(comps, ncomp, sizeof(Comp), cmp_comp);
    int total = 0, largest = 0;
    for (int c = 0; c < ncomp; c++) {
        total += comps[c].len + 1;
        int size = 0;
        for (int k = 0; k < comps[c].len; k++) size += comps[c].key[k] < B_END;
        if (size > largest) largest = size;
    }
    out_reserve(total + 2);
    if (nrecs == recs_cap) { recs_cap = recs_cap * 2 + 256; recs = realloc(recs, recs_cap * sizeof(Rec)); }
    recs[nrecs].off = out_len; recs[nrecs].len = total; recs[nrecs].largest = largest; nrecs++;
    for (int c = 0; c < ncomp; c++) {
        memcpy(out_buf + out_len, comps[c].key, comps[c].len);
        out_len += comps[c].len;
        out_buf[out_len++] = C_END;
    }
}

/* ---------- the component being expanded ---------- */
static int espots[MAXT];
static Span eb[MAXB];
static int ereg_b0[MAXR], ereg_nb[MAXR];
static int enr, enspots, ecount[MAXV];
static int base_lives[MAXV];

static int parse_component(const uint8_t *key, int n) {
    int maxlinked = -1;
    for (int i = 0; i < n; i++) if (key[i] < ANON && key[i] > maxlinked) maxlinked = key[i];
    int fresh = maxlinked + 1, ns = 0, nb = 0;
    enr = 0;
    int b0 = 0, start = 0;
    for (int i = 0; i < n; i++) {
        uint8_t t = key[i];
        if (t == B_END) { eb[nb].start = start; eb[nb].len = ns - start; nb++; start = ns; }
        else if (t == R_END) { ereg_b0[enr] = b0; ereg_nb[enr] = nb - b0; enr++; b0 = nb; }
        else if (t == C_END) { /* several components of a game: one position */ }
        else if (t > ANON) { base_lives[fresh] = t - ANON; espots[ns++] = fresh++; }
        else { base_lives[t] = 1; espots[ns++] = t; }
        if (fresh >= MAX_SPOTS || ns >= MAX_TOKENS || nb >= MAX_BOUNDARIES || enr >= MAX_REGIONS
            || ns - start > MAX_BOUNDARY) return -1;
    }
    enspots = fresh;
    for (int v = 0; v < enspots; v++) ecount[v] = 0;
    for (int k = 0; k < ns; k++) ecount[espots[k]]++;
    return 0;
}

/* The position after a move in region `index`: other regions, then `parts` (flat, END_B/END_R marked). */
static int flat[MAXT * 2];
static void finish_move(int index, const int *parts, int plen, int a, int b, int new_spot) {
    int n = 0;
    for (int r = 0; r < enr; r++) {
        if (r == index) continue;
        for (int k = 0; k < ereg_nb[r]; k++) {
            Span s = eb[ereg_b0[r] + k];
            for (int j = 0; j < s.len; j++) flat[n++] = espots[s.start + j];
            flat[n++] = END_B;
        }
        flat[n++] = END_R;
    }
    memcpy(flat + n, parts, plen * sizeof(int));
    n += plen;
    memcpy(lives, base_lives, (new_spot + 1) * sizeof(int));
    lives[a]--; lives[b]--;
    lives[new_spot] = 1;
    emit_game(flat, n, new_spot + 1);
}

static int spot_at(Span s, int cut, int i) { return espots[s.start + (cut + i) % s.len]; }

static void joins(int index, int new_spot) {
    int b0 = ereg_b0[index], nb = ereg_nb[index];
    int parts[MAXT];
    for (int a = 0; a < nb; a++) for (int b = a + 1; b < nb; b++) {
        Span A = eb[b0 + a], B = eb[b0 + b];
        for (int i = 0; i < A.len; i++) for (int j = 0; j < B.len; j++) {
            int n = 0;
            for (int k = 0; k < nb; k++) {
                if (k == a || k == b) continue;
                Span s = eb[b0 + k];
                for (int q = 0; q < s.len; q++) parts[n++] = espots[s.start + q];
                parts[n++] = END_B;
            }
            parts[n++] = new_spot;
            for (int q = 0; q < A.len; q++) parts[n++] = spot_at(A, i, q);
            parts[n++] = spot_at(A, i, 0);
            parts[n++] = new_spot;
            for (int q = 0; q < B.len; q++) parts[n++] = spot_at(B, j, q);
            parts[n++] = spot_at(B, j, 0);
            parts[n++] = END_B;
            parts[n++] = END_R;
            finish_move(index, parts, n, spot_at(A, i, 0), spot_at(B, j, 0), new_spot);
        }
    }
}

/* How the region's other boundaries are shared between the two new regions: boundaries whose spots are
 * met nowhere else are interchangeable when alike (only how many go across matters). */
static void divisions(int index, int new_spot) {
    int b0 = ereg_b0[index], nb = ereg_nb[index];
    for (int s = 0; s < nb; s++) {
        /* group the other boundaries into kinds */
        int kind_of[MAXB], kind_size[MAXB], nkinds = 0, kind_rep[MAXB];
        int others[MAXB], no = 0;
        for (int k = 0; k < nb; k++) if (k != s) others[no++] = b0 + k;
        for (int o = 0; o < no; o++) {
            Span sp = eb[others[o]];
            int alone = 1;
            for (int q = 0; q < sp.len; q++) if (ecount[espots[sp.start + q]] != 1) alone = 0;
            int found = -1;
            if (alone) {
                for (int g = 0; g < nkinds && found < 0; g++) {
                    Span rep = eb[others[kind_rep[g]]];
                    if (kind_rep[g] < 0 || rep.len != sp.len) continue;
                    int repalone = 1;
                    for (int q = 0; q < rep.len; q++) if (ecount[espots[rep.start + q]] != 1) repalone = 0;
                    if (!repalone) continue;
                    /* alike: the same lives up to rotation */
                    for (int r = 0; r < sp.len && found < 0; r++) {
                        int same = 1;
                        for (int q = 0; q < sp.len; q++)
                            if (base_lives[espots[sp.start + (q + r) % sp.len]] != base_lives[espots[rep.start + q]]) { same = 0; break; }
                        if (same) found = g;
                    }
                }
            }
            if (found < 0) { found = nkinds++; kind_rep[found] = o; kind_size[found] = 0; }
            kind_of[o] = found;
            kind_size[found]++;
        }
        /* the members of each kind, in order: kind g's are by_kind[first[g] .. first[g] + nmem[g]) */
        int by_kind[MAXB], first[MAXB], nmem[MAXB], filled = 0;
        for (int g = 0; g < nkinds; g++) { first[g] = filled; nmem[g] = kind_size[g]; filled += kind_size[g]; nmem[g] = 0; }
        for (int o = 0; o < no; o++) { int g = kind_of[o]; by_kind[first[g] + nmem[g]++] = others[o]; }
        Span S = eb[b0 + s];
        int L = S.len;
        for (int i = 0; i < L; i++) {
            int played[MAXT / 2];
            for (int q = 0; q < L; q++) played[q] = spot_at(S, i, q);
            played[L] = played[0];
            for (int k = 1; k <= L; k++) {
                int start = played[0], end = played[k - 1];
                if (base_lives[start] < 1 + (start == end) || base_lives[end] < 1) continue;
                int taken[MAXB];
                for (int g = 0; g < nkinds; g++) taken[g] = 0;
                for (;;) {
                    int parts[MAXT], n = 0;
                    parts[n++] = new_spot;
                    for (int q = 0; q < k; q++) parts[n++] = played[q];
                    parts[n++] = END_B;
                    for (int g = 0; g < nkinds; g++) for (int c = 0; c < taken[g]; c++) {
                        Span o = eb[by_kind[first[g] + c]];
                        for (int q = 0; q < o.len; q++) parts[n++] = espots[o.start + q];
                        parts[n++] = END_B;
                    }
                    parts[n++] = END_R;
                    parts[n++] = new_spot;
                    parts[n++] = end;
                    for (int q = k; q <= L; q++) parts[n++] = played[q];
                    parts[n++] = END_B;
                    for (int g = 0; g < nkinds; g++) for (int c = taken[g]; c < nmem[g]; c++) {
                        Span o = eb[by_kind[first[g] + c]];
                        for (int q = 0; q < o.len; q++) parts[n++] = espots[o.start + q];
                        parts[n++] = END_B;
                    }
                    parts[n++] = END_R;
                    finish_move(index, parts, n, start, end, new_spot);
                    int g = 0;
                    while (g < nkinds && taken[g] == nmem[g]) { taken[g] = 0; g++; }
                    if (g == nkinds) break;
                    taken[g]++;
                }
            }
        }
    }
}

static const uint8_t *sort_base;
static int cmp_rec(const void *x, const void *y) {
    const Rec *a = x, *b = y;
    if (a->largest != b->largest) return a->largest - b->largest;
    return cmp_bytes(sort_base + a->off, a->len, sort_base + b->off, b->len);
}

static uint8_t *result_buf = NULL;
static size_t result_cap = 0;

/* The result: each distinct option's game bytes, each followed by OPTION_END, smallest first (by the size
 * of the largest component: the order the search tries them in), ties in increasing order of the bytes. */
static long collect(void) {
    sort_base = out_buf;
    qsort(recs, nrecs, sizeof(Rec), cmp_rec);
    size_t need = out_len + nrecs + 16;
    if (need > result_cap) { result_cap = need * 2; result_buf = realloc(result_buf, result_cap); }
    size_t n = 0;
    for (size_t r = 0; r < nrecs; r++) {
        if (r && cmp_rec(&recs[r], &recs[r - 1]) == 0) continue;
        memcpy(result_buf + n, out_buf + recs[r].off, recs[r].len);
        n += recs[r].len;
        result_buf[n++] = OPTION_END;
    }
    return (long)n;
}

/* Every option of the component `key`; the length of the result (read it with sp_result), -1 if too big. */
long sp_options(const uint8_t *key, int n) {
    out_len = 0; nrecs = 0;
    if (parse_component(key, n) < 0) return -1;
    int new_spot = enspots;
    if (new_spot >= MAXV - 1) return -1;
    for (int index = 0; index < enr; index++) {
        joins(index, new_spot);
        divisions(index, new_spot);
    }
    return collect();
}

/* The reduced, split and keyed form of a position given in the same format (a game's bytes, or regions
 * of any spots): one record, read with sp_result. */
long sp_normalise(const uint8_t *key, int n) {
    out_len = 0; nrecs = 0;
    if (parse_component(key, n) < 0) return -1;
    int m = 0;
    for (int r = 0; r < enr; r++) {
        for (int k = 0; k < ereg_nb[r]; k++) {
            Span s = eb[ereg_b0[r] + k];
            for (int j = 0; j < s.len; j++) flat[m++] = espots[s.start + j];
            flat[m++] = END_B;
        }
        flat[m++] = END_R;
    }
    memcpy(lives, base_lives, enspots * sizeof(int));
    emit_game(flat, m, enspots);
    return collect();
}

const uint8_t *sp_result(void) { return result_buf; }

static int key_lives(const uint8_t *p, long len) {
    int total = 0;
    uint8_t seen[256];
    memset(seen, 0, sizeof seen);
    for (long k = 0; k < len; k++) {
        uint8_t t = p[k];
        if (t == C_END) memset(seen, 0, sizeof seen);
        else if (t > ANON && t < B_END) total += t - ANON;
        else if (t < ANON && !seen[t]) { seen[t] = 1; total++; }
    }
    return total;
}

/* The results of positions with at least export_lives lives, queued as they are found: a kind byte ('n'
 * a component's nimber, 'h' a component and heap's normal outcome, its key ending with the heap, 'm' a
 * game's misere outcome), the value, a 2-byte length and the key. */
static int export_lives = 1 << 30;
static uint8_t *queue = NULL;
static size_t queue_len = 0, queue_cap = 0;

static void queue_result(int kind, const uint8_t *key, int len, int value, int lives) {
    if (lives < export_lives) return;
    if (queue_len + len + 4 > queue_cap) { queue_cap = (queue_len + len + 4) * 2 + 65536; queue = realloc(queue, queue_cap); }
    queue[queue_len++] = (uint8_t)kind;
    queue[queue_len++] = (uint8_t)value;
    queue[queue_len++] = (uint8_t)(len >> 8);
    queue[queue_len++] = (uint8_t)(len & 0xFF);
    memcpy(queue + queue_len, key, len);
    queue_len += len;
}

/* ---------- misere play: the whole search in C ----------
 * The same search as solver.py's misere_wins (the mover with no move left has won; a position is won
 * when some option is lost; options tried smallest first), on games of this file's keys, with two tables:
 * each game's outcome, and each component's options (listed once). Both are emptied by sp_reset. */

typedef struct { uint8_t *key; uint32_t len; uint32_t hash; int value; uint8_t *data; long dlen; } Entry;
typedef struct { Entry *slots; size_t cap, used; } Generation;
/* A table holds at most `limit` entries, in two generations: new entries go to `now`; when it holds half
 * the limit, `old` is emptied and `now` becomes it. An entry found in `old` comes back into `now`, so what
 * a long search keeps meeting stays, and only what it has not met for a generation goes. Emptying a whole
 * table at its limit, as before, lost it all at once: the misere 10-spot join move took 1,980 s of CPU
 * that way, 1,438 s with two generations (both about 800 MB at their peak), 470 s with tables never
 * emptied (3.2 GB). */
typedef struct { Generation now, old; size_t limit; } Table;
#define TABLE(limit) {{NULL, 0, 0}, {NULL, 0, 0}, (limit)}
#define TABLE_LIMIT 2000000
#define LISTED_LIMIT 150000
static Table outcomes = TABLE(TABLE_LIMIT), listed = TABLE(LISTED_LIMIT);

static uint32_t hash_bytes(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
    return h ? h : 1;
}

static void generation_clear(Generation *g) {
    for (size_t i = 0; i < g->cap; i++) if (g->slots[i].key) { free(g->slots[i].key); free(g->slots[i].data); }
    free(g->slots);
    g->slots = NULL; g->cap = g->used = 0;
}

static void table_clear(Table *t) { generation_clear(&t->now); generation_clear(&t->old); }

static size_t table_size(const Table *t) { return t->now.used + t->old.used; }

static Entry *generation_find(Generation *g, const uint8_t *key, uint32_t len, uint32_t h) {
    if (!g->cap) return NULL;
    for (size_t i = h & (g->cap - 1);; i = (i + 1) & (g->cap - 1)) {
        Entry *e = &g->slots[i];
        if (!e->key) return NULL;
        if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0) return e;
    }
}

/* A new entry in `g` (which must not hold the key), its value 0 and no data. */
static Entry *generation_add(Generation *g, const uint8_t *key, uint32_t len, uint32_t h) {
    if ((g->used + 1) * 10 > g->cap * 7) {
        size_t cap = g->cap ? g->cap * 2 : 1 << 16;
        Entry *slots = calloc(cap, sizeof(Entry));
        for (size_t i = 0; i < g->cap; i++) if (g->slots[i].key) {
            size_t j = g->slots[i].hash & (cap - 1);
            while (slots[j].key) j = (j + 1) & (cap - 1);
            slots[j] = g->slots[i];
        }
        free(g->slots);
        g->slots = slots; g->cap = cap;
    }
    size_t i = h & (g->cap - 1);
    while (g->slots[i].key) i = (i + 1) & (g->cap - 1);
    Entry *e = &g->slots[i];
    e->key = malloc(len ? len : 1); memcpy(e->key, key, len);
    e->len = len; e->hash = h; e->value = 0; e->data = NULL; e->dlen = 0;
    g->used++;
    return e;
}

/* A new entry (its key not in the table), its value 0 and no data. The entry is valid until the next
 * table_add or table_find on the same table. */
static Entry *table_add(Table *t, const uint8_t *key, uint32_t len, uint32_t h) {
    if (t->now.used >= t->limit / 2) {
        generation_clear(&t->old);
        t->old = t->now;
        t->now = (Generation){NULL, 0, 0};
    }
    return generation_add(&t->now, key, len, h);
}

static Entry *table_find(Table *t, const uint8_t *key, uint32_t len, uint32_t h) {
    Entry *e = generation_find(&t->now, key, len, h);
    if (e || !(e = generation_find(&t->old, key, len, h))) return e;
    if (t->now.used >= t->limit / 2) return e;  /* (the next table_add moves `now` to `old` anyway) */
    Entry *kept = generation_add(&t->now, key, len, h);  /* back into the newer generation: its data moves */
    kept->value = e->value; kept->data = e->data; kept->dlen = e->dlen;
    e->data = NULL; e->dlen = 0;
    return kept;
}

/* A component's options (games each followed by OPTION_END, smallest first), listed once. */
static Entry *options_of(const uint8_t *comp, int len) {
    uint32_t h = hash_bytes(comp, len);
    Entry *e = table_find(&listed, comp, len, h);
    if (e) return e;
    long n = sp_options(comp, len);
    if (n < 0) return NULL;
    e = table_add(&listed, comp, len, h);
    e->data = malloc(n ? n : 1); memcpy(e->data, result_buf, n); e->dlen = n;
    return e;
}

static double deadline_at = 0;  /* seconds of CLOCK_MONOTONIC; 0: none */
static long nodes = 0;
#include <time.h>
/* The clock is read every 64 nodes: a node of a 10-spot position can take a tenth of a millisecond and
 * more, and every 1,024 overran a 0.1 s deadline by 0.1-0.25 s, once per turn of the search in turns
 * (solver.py), so a move's 1.5 s of analysis took up to 2.4 s of CPU. The clock (vDSO) costs nanoseconds. */
static int past_deadline(void) {
    if (deadline_at <= 0 || (++nodes & 63)) return 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec * 1e-9 > deadline_at;
}

typedef struct { const uint8_t *p; int len; } Piece;
static int cmp_piece(const void *x, const void *y) {
    const Piece *a = x, *b = y;
    return cmp_bytes(a->p, a->len, b->p, b->len);
}
static int split_game(const uint8_t *g, int len, Piece *pieces) {
    int n = 0, start = 0;
    for (int i = 0; i < len; i++) if (g[i] == C_END) { pieces[n].p = g + start; pieces[n].len = i - start; n++; start = i + 1; }
    return n;
}

static int key_size(const uint8_t *p, int len) {
    int size = 0;
    for (int k = 0; k < len; k++) size += p[k] < B_END;
    return size;
}

/* ---------- misere play: canonical forms of small components ----------
 * Lemoine and Viennot's way to misere play, with rules of our own proof: a component of at most
 * small_lives lives is replaced by its misere game form (the set of its options' forms, each option a
 * sum of components), simplified, interned as a number; all the small components of a position are
 * added up into one form, so positions whose small parts are equal as misere games share one entry, and
 * moves there are the form's few options instead of the drawings'. Forms are equal games when their
 * numbers are equal (not always the converse: the rules below do not reach every simplest form).
 *
 * The simplification (G a set of options; o(X) the misere outcome of X alone, "P" lost for the mover):
 * an option A of G may be removed when A has an option B whose options are exactly G's others (B = G
 * less A), and G less A is not empty. Proof, for every game X by induction: if G-less-A + X is won,
 * so is G + X (the same winning move; G-less-A + X always has a move); if it is lost, every move of
 * G + X is answered: to G + X' or to C + X as in G-less-A + X, and A + X by A -> B, back to G-less-A + X.
 * When G less A is empty (G = {A}), A may be removed (G = 0) when B is 0 and A alone is lost: then
 * G alone is won like 0, and A + X (X lost, X not 0) is answered by A -> 0, leaving X. (The second rule
 * gives {*} = 0, i.e. * + * = 0.) */
static int small_lives = 6;
/* Components of at most `lives` lives are kept as forms (0: none; the tests compare both ways). Every
 * table stays valid: a key is the game it names whichever parts of it are forms. */
void sp_misere_small(int lives) { small_lives = lives; }
typedef struct { int *opts; int n; } Form;
static Form *forms = NULL;
static int nforms = 0, forms_cap = 0;
static int *form_slots = NULL;  /* open addressing over forms: id + 1, 0 empty */
static size_t form_slots_cap = 0;
static signed char *form_won = NULL;  /* the misere outcome of each form alone: -1 not known yet */
/* Each form's name outside this process: a 128-bit hash of the set of its options' names (the form 0's
 * fixed), so that outcomes of games with a small part can be kept in the shared store and read by any
 * process, whatever numbers its forms were given. Options are a set (no repeats), so summing their mixed
 * names is an order-free hash of it. A collision of two 128-bit names would mislead; its odds among even
 * 10^9 forms are below 10^-20. */
typedef struct { uint64_t a, b; } FormName;
static FormName *form_names = NULL;
static int *name_slots = NULL;  /* open addressing over the forms by name: id + 1, 0 empty */
static size_t name_slots_cap = 0;
/* comp_forms holds form numbers (emptied with the forms); form_outcomes is keyed by names (kept). */
static Table comp_forms = TABLE(TABLE_LIMIT), form_outcomes = TABLE(TABLE_LIMIT);
typedef struct { uint64_t pair; int id; } SumEntry;
static SumEntry *sums = NULL;  /* (a, b) -> the form of a + b; pair 0 empty */
static size_t sums_cap = 0, sums_used = 0;
#define FORM_MARK 0xFB  /* a game key's last 17 bytes when it has a small part: the mark, its form's name */
#define FORM_NAME_BYTES 16
#define FORMS_LIMIT 4000000

static uint32_t hash_ints(const int *a, int n) {
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++) { h ^= (uint32_t)a[i]; h *= 16777619u; h ^= h >> 15; }
    return h;
}

static uint64_t mix64(uint64_t x) {  /* splitmix64's finaliser */
    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 27; x *= 0x94D049BB133111EBull; return x ^ (x >> 31);
}

static FormName name_of(const int *opts, int n) {
    FormName name = {0x9E3779B97F4A7C15ull + (uint64_t)n, 0xD1B54A32D192ED03ull ^ (uint64_t)n};
    for (int k = 0; k < n; k++) {
        name.a += mix64(form_names[opts[k]].a);
        name.b += mix64(form_names[opts[k]].b ^ 0x2545F4914F6CDD1Dull);
    }
    name.a = mix64(name.a); name.b = mix64(name.b + 0x632BE59BD9B4E019ull);
    return name;
}

static void add_name(int id) {
    if ((size_t)(id + 1) * 2 > name_slots_cap) {
        size_t cap = name_slots_cap ? name_slots_cap * 2 : 1 << 16;
        int *slots = calloc(cap, sizeof(int));
        for (int other = 0; other < id; other++) {
            size_t j = form_names[other].a & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = other + 1;
        }
        free(name_slots);
        name_slots = slots; name_slots_cap = cap;
    }
    size_t j = form_names[id].a & (name_slots_cap - 1);
    while (name_slots[j]) j = (j + 1) & (name_slots_cap - 1);
    name_slots[j] = id + 1;
}

/* The number of the form named `name` in this process (every name read from a key was made here). */
static int form_named(FormName name) {
    for (size_t j = name.a & (name_slots_cap - 1);; j = (j + 1) & (name_slots_cap - 1)) {
        int id = name_slots[j] - 1;
        if (id < 0 || (form_names[id].a == name.a && form_names[id].b == name.b)) return id;
    }
}

static int intern_form(const int *opts, int n) {
    if ((size_t)(nforms + 1) * 2 > form_slots_cap) {
        size_t cap = form_slots_cap ? form_slots_cap * 2 : 1 << 16;
        int *slots = calloc(cap, sizeof(int));
        for (int id = 0; id < nforms; id++) {
            size_t j = hash_ints(forms[id].opts, forms[id].n) & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = id + 1;
        }
        free(form_slots);
        form_slots = slots; form_slots_cap = cap;
    }
    size_t j = hash_ints(opts, n) & (form_slots_cap - 1);
    for (; form_slots[j]; j = (j + 1) & (form_slots_cap - 1)) {
        Form *f = &forms[form_slots[j] - 1];
        if (f->n == n && memcmp(f->opts, opts, n * sizeof(int)) == 0) return form_slots[j] - 1;
    }
    if (nforms == forms_cap) {
        forms_cap = forms_cap * 2 + 4096;
        forms = realloc(forms, forms_cap * sizeof(Form));
        form_won = realloc(form_won, forms_cap);
        form_names = realloc(form_names, forms_cap * sizeof(FormName));
    }
    form_names[nforms] = name_of(opts, n);
    forms[nforms].opts = malloc(n ? n * sizeof(int) : 1);
    memcpy(forms[nforms].opts, opts, n * sizeof(int));
    forms[nforms].n = n;
    form_won[nforms] = -1;
    form_slots[j] = nforms + 1;
    add_name(nforms);
    return nforms++;
}

static void forms_reset(void) {
    for (int id = 0; id < nforms; id++) free(forms[id].opts);
    nforms = 0;
    if (form_slots) memset(form_slots, 0, form_slots_cap * sizeof(int));
    if (name_slots) memset(name_slots, 0, name_slots_cap * sizeof(int));
    free(sums); sums = NULL; sums_cap = sums_used = 0;
    table_clear(&comp_forms);  /* form_outcomes stays: its keys name forms, not number them */
    intern_form(NULL, 0);  /* form 0: the game with no move */
}

static int form_wins(int id) {
    if (form_won[id] < 0) {
        int won = forms[id].n == 0;
        for (int k = 0; k < forms[id].n && !won; k++) won = !form_wins(forms[id].opts[k]);
        form_won[id] = (signed char)won;
    }
    return form_won[id];
}

static int cmp_int(const void *x, const void *y) { int a = *(const int *)x, b = *(const int *)y; return (a > b) - (a < b); }

/* The form of the game whose options have forms opts[0..n) (sorted here, duplicates dropped), simplified. */
static int canonical_form(int *opts, int n) {
    qsort(opts, n, sizeof(int), cmp_int);
    int m = 0;
    for (int i = 0; i < n; i++) if (!m || opts[m - 1] != opts[i]) opts[m++] = opts[i];
    n = m;
    for (int removed = 1; removed && n > 0;) {
        removed = 0;
        for (int i = 0; i < n && !removed; i++) {
            const Form *a = &forms[opts[i]];
            if (n == 1) {  /* G = {A}: 0 when 0 is an option of A and A alone is lost */
                if (a->n && a->opts[0] == 0 && !form_wins(opts[i])) { n = 0; removed = 1; }
                continue;
            }
            for (int k = 0; k < a->n && !removed; k++) {
                const Form *b = &forms[a->opts[k]];
                if (b->n != n - 1) continue;
                int same = 1;
                for (int j = 0, q = 0; j < n && same; j++) if (j != i) same = b->opts[q++] == opts[j];
                if (same) {  /* B = G less A: A goes */
                    memmove(opts + i, opts + i + 1, (n - i - 1) * sizeof(int));
                    n--; removed = 1;
                }
            }
        }
    }
    return intern_form(opts, n);
}

static int sum_forms(int a, int b) {
    if (a == 0) return b;
    if (b == 0) return a;
    if (a > b) { int t = a; a = b; b = t; }
    uint64_t pair = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) + 1;
    uint32_t h = hash_bytes((const uint8_t *)&pair, sizeof pair);
    if (sums_cap) for (size_t j = h & (sums_cap - 1); sums[j].pair; j = (j + 1) & (sums_cap - 1))
        if (sums[j].pair == pair) return sums[j].id;
    int na = forms[a].n, nb = forms[b].n;
    int *opts = malloc((na + nb) * sizeof(int) + 1);
    memcpy(opts, forms[a].opts, na * sizeof(int));  /* copies: forms may move while we add */
    memcpy(opts + na, forms[b].opts, nb * sizeof(int));
    for (int k = 0; k < na; k++) opts[k] = sum_forms(opts[k], b);
    for (int k = na; k < na + nb; k++) opts[k] = sum_forms(a, opts[k]);
    int id = canonical_form(opts, na + nb);
    free(opts);
    if ((sums_used + 1) * 10 > sums_cap * 7) {
        size_t cap = sums_cap ? sums_cap * 2 : 1 << 16;
        SumEntry *slots = calloc(cap, sizeof(SumEntry));
        for (size_t i = 0; i < sums_cap; i++) if (sums[i].pair) {
            size_t j = hash_bytes((const uint8_t *)&sums[i].pair, sizeof(uint64_t)) & (cap - 1);
            while (slots[j].pair) j = (j + 1) & (cap - 1);
            slots[j] = sums[i];
        }
        free(sums);
        sums = slots; sums_cap = cap;
    }
    size_t j = h & (sums_cap - 1);
    while (sums[j].pair) j = (j + 1) & (sums_cap - 1);
    sums[j].pair = pair; sums[j].id = id; sums_used++;
    return id;
}

static int is_small(const uint8_t *comp, int len) { return key_lives(comp, len) <= small_lives; }

/* The form of a small component (every component after a move in it is smaller still); -2 too large. */
static int component_form(const uint8_t *comp, int len) {
    uint32_t h = hash_bytes(comp, len);
    Entry *e = table_find(&comp_forms, comp, len, h);
    if (e) return e->value;
    Entry *listing = options_of(comp, len);
    if (!listing) return -2;
    long dlen = listing->dlen;
    uint8_t *data = malloc(dlen ? dlen : 1);  /* the table of options may be emptied while we recurse */
    memcpy(data, listing->data, dlen);
    int *opts = malloc((dlen + 1) * sizeof(int)), n = 0, id = 0;
    for (long i = 0; i < dlen && id >= 0;) {
        long j = i;
        while (data[j] != OPTION_END) j++;
        Piece parts[MAXR];
        int np = split_game(data + i, (int)(j - i), parts), form = 0;
        for (int k = 0; k < np && id >= 0; k++) {
            int part = component_form(parts[k].p, parts[k].len);
            if (part < 0) id = part; else form = sum_forms(form, part);
        }
        opts[n++] = form;
        i = j + 1;
    }
    if (id >= 0) id = canonical_form(opts, n);
    free(opts); free(data);
    if (id >= 0) table_add(&comp_forms, comp, len, h)->value = id;
    return id;
}

/* The forms seen from Python, for the tests of the rules above on games of any kind (nim heaps...): the
 * form of the game whose options are the forms opts[0..n), the form of a sum, the outcome of a form. */
int sp_form(const int *opts, int n) {
    if (nforms == 0) forms_reset();  /* form 0 first (a form's options are forms made before it) */
    int *copy = malloc(n * sizeof(int) + 1);
    memcpy(copy, opts, n * sizeof(int));
    int id = canonical_form(copy, n);
    free(copy);
    return id;
}
int sp_form_sum(int a, int b) { if (nforms == 0) forms_reset(); return sum_forms(a, b); }
int sp_form_wins(int id) { if (nforms == 0) forms_reset(); return form_wins(id); }

/* A game key: the large components (each followed by C_END), then, when the small ones are not all
 * gone, FORM_MARK and their sum's form's name. (No component's byte is FORM_MARK: 11 lives.) */
static int has_form(const uint8_t *key, int len) {
    return len > FORM_NAME_BYTES && key[len - 1 - FORM_NAME_BYTES] == FORM_MARK;
}

static int form_of_key(const uint8_t *key, int len, int *form) {
    if (has_form(key, len)) {
        FormName name;
        memcpy(&name, key + len - FORM_NAME_BYTES, FORM_NAME_BYTES);
        *form = form_named(name);
        return len - 1 - FORM_NAME_BYTES;
    }
    *form = 0;
    return len;
}

typedef struct { uint8_t *key; int len, largest, order; } Child;
static int cmp_child(const void *x, const void *y) {
    const Child *a = x, *b = y;
    return a->largest != b->largest ? a->largest - b->largest : a->order - b->order;
}

static Child *add_child(Child **children, int *n, int *cap, Piece *parts, int np, int form, int largest) {
    if (*n == *cap) { *cap = *cap * 2 + 64; *children = realloc(*children, *cap * sizeof(Child)); }
    qsort(parts, np, sizeof(Piece), cmp_piece);
    int clen = 1 + FORM_NAME_BYTES;
    for (int k = 0; k < np; k++) clen += parts[k].len + 1;
    Child *ch = &(*children)[*n];
    ch->key = malloc(clen); ch->len = 0; ch->largest = largest; ch->order = *n;
    for (int k = 0; k < np; k++) { memcpy(ch->key + ch->len, parts[k].p, parts[k].len); ch->len += parts[k].len; ch->key[ch->len++] = C_END; }
    if (form) {
        ch->key[ch->len++] = FORM_MARK;
        memcpy(ch->key + ch->len, &form_names[form], FORM_NAME_BYTES);
        ch->len += FORM_NAME_BYTES;
    }
    (*n)++;
    return ch;
}

static Table *outcome_table(int form) { return form ? &form_outcomes : &outcomes; }

/* 1: the mover wins the game `key` (large components, and the form of the small ones); 0: loses; -1:
 * past the deadline; -2: a position too large. */
static int misere(const uint8_t *key, int len) {
    int form, blen = form_of_key(key, len, &form);
    if (blen == 0) return form_wins(form);
    Table *table = outcome_table(form);
    uint32_t h = hash_bytes(key, len);
    Entry *known = table_find(table, key, len, h);
    if (known) return known->value;
    if (past_deadline()) return -1;
    Piece comps[MAXR];
    int ncomp = split_game(key, blen, comps);
    Child *children = NULL;
    int nchildren = 0, capchildren = 0, result = 0, biggest = 0;
    for (int d = 0; d < ncomp; d++) { int s = key_size(comps[d].p, comps[d].len); if (s > biggest) biggest = s; }
    for (int c = 0; c < ncomp && result >= 0; c++) {
        int twin = 0;
        for (int d = 0; d < c; d++) if (cmp_piece(&comps[c], &comps[d]) == 0) twin = 1;
        if (twin) continue;  /* a move in either of two equal components leads to the same position */
        Entry *listing = options_of(comps[c].p, comps[c].len);
        if (!listing) { result = -2; break; }
        long dlen = listing->dlen;
        uint8_t *data = malloc(dlen ? dlen : 1);  /* forms of small parts may list options and empty the table */
        memcpy(data, listing->data, dlen);
        int restlargest = 0;
        for (int d = 0; d < ncomp; d++) if (d != c) { int s = key_size(comps[d].p, comps[d].len); if (s > restlargest) restlargest = s; }
        for (long i = 0; i < dlen && result >= 0;) {
            long j = i;
            while (data[j] != OPTION_END) j++;
            /* the option's large components and the rest, in increasing order; its small ones added to the form */
            Piece parts[MAXR * 2], large[MAXR * 2];
            int np = split_game(data + i, (int)(j - i), parts), nl = 0, largest = restlargest, child_form = form;
            for (int k = 0; k < np && result >= 0; k++) {
                if (is_small(parts[k].p, parts[k].len)) {
                    int part = component_form(parts[k].p, parts[k].len);
                    if (part < 0) result = part; else child_form = sum_forms(child_form, part);
                } else {
                    int s = key_size(parts[k].p, parts[k].len);
                    if (s > largest) largest = s;
                    large[nl++] = parts[k];
                }
            }
            for (int d = 0; d < ncomp; d++) if (d != c) large[nl++] = comps[d];
            if (result >= 0) add_child(&children, &nchildren, &capchildren, large, nl, child_form, largest);
            i = j + 1;
        }
        free(data);
    }
    if (result >= 0 && form) {  /* a move in the small part: one of its form's options */
        int n = forms[form].n, *opts = malloc(n * sizeof(int) + 1);
        memcpy(opts, forms[form].opts, n * sizeof(int));
        for (int k = 0; k < n; k++) {
            Piece large[MAXR];
            memcpy(large, comps, ncomp * sizeof(Piece));
            add_child(&children, &nchildren, &capchildren, large, ncomp, opts[k], biggest);
        }
        free(opts);
    }
    /* an option already known to be lost wins at once, before any search (enhanced transposition cutoff) */
    for (int k = 0; k < nchildren && result == 0; k++) {
        int child_form;
        form_of_key(children[k].key, children[k].len, &child_form);
        Entry *e = table_find(outcome_table(child_form), children[k].key, children[k].len, hash_bytes(children[k].key, children[k].len));
        if (e && e->value == 0) result = 1;
    }
    if (result == 0) {
        qsort(children, nchildren, sizeof(Child), cmp_child);
        for (int k = 0; k < nchildren; k++) {
            int r = misere(children[k].key, children[k].len);
            if (r < 0) { result = r; break; }
            if (r == 0) { result = 1; break; }
        }
    }
    for (int k = 0; k < nchildren; k++) free(children[k].key);
    free(children);
    if (result >= 0) {
        table_add(table, key, len, h)->value = result;
        /* to the store when its drawn part is large enough (a form's name means the same in every process) */
        queue_result('m', key, len, result, key_lives(key, blen));
    }
    return result;
}

/* The key misere() knows a game by (keys each followed by 0xFF): its large components, and its small
 * ones added up into one form; 0, or -2 for a position too large for the core. */
static int misere_key(const uint8_t *game, int len, Child *root) {
    if (nforms == 0 || nforms > FORMS_LIMIT) forms_reset();  /* bounded between searches, not within one */
    Piece comps[MAXR], large[MAXR];
    int ncomp = split_game(game, len, comps), nl = 0, form = 0;
    for (int c = 0; c < ncomp; c++) {
        if (is_small(comps[c].p, comps[c].len)) {
            int part = component_form(comps[c].p, comps[c].len);
            if (part < 0) return part;
            form = sum_forms(form, part);
        } else {
            large[nl++] = comps[c];
        }
    }
    Child *children = NULL;
    int n = 0, cap = 0;
    add_child(&children, &n, &cap, large, nl, form, 0);
    *root = children[0];
    free(children);
    return 0;
}

/* The misere outcome of a game (keys each followed by 0xFF): 1 won, 0 lost, -1 stopped at `deadline`
 * (seconds of CLOCK_MONOTONIC, 0 for none), -2 a position too large for the core. */
int sp_misere(const uint8_t *game, int len, double deadline) {
    deadline_at = deadline;
    Child root;
    int error = misere_key(game, len, &root);
    if (error < 0) return error;
    int result = misere(root.key, root.len);
    free(root.key);
    return result;
}

/* A misere outcome settled outside the core (solver.py's search in turns decides a position from its
 * options' outcomes): into the table as if searched here, so that a search of a position with this one
 * as an option finds it at once, and queued for the store like the core's own. */
void sp_misere_learn(const uint8_t *game, int len, int wins) {
    Child root;
    if (misere_key(game, len, &root) < 0) return;
    int form, blen = form_of_key(root.key, root.len, &form);
    uint32_t h = hash_bytes(root.key, root.len);
    if (blen > 0 && !table_find(outcome_table(form), root.key, root.len, h)) {
        table_add(outcome_table(form), root.key, root.len, h)->value = wins;
        queue_result('m', root.key, root.len, wins, key_lives(root.key, blen));
    }
    free(root.key);
}

/* Components listed so far (a measure of the work done). */
long sp_listed(void) { return (long)table_size(&listed); }


/* ---------- normal play: Lemoine and Viennot's search in C ----------
 * The same as solver.py's nimber / _wins_with_heap / normal_wins: a component's nimber is the least n for
 * which it plus a nim heap of n is lost; a sum is searched as its largest component plus a heap of the
 * others' nimbers; options whose parts all have known nimbers are tried first, then the smaller heaps,
 * then the options smallest first. */

static Table nimbers = TABLE(TABLE_LIMIT), heaps = TABLE(TABLE_LIMIT);

static int wins_with_heap(const uint8_t *comp, int len, int heap);

static int nimber_of(const uint8_t *comp, int len) {
    Entry *e = table_find(&nimbers, comp, len, hash_bytes(comp, len));
    if (e) return e->value;
    for (int heap = 0;; heap++) {
        int r = wins_with_heap(comp, len, heap);
        if (r < 0) return r;
        if (r == 0) return heap;  /* recorded by wins_with_heap */
    }
}

/* The sum of `parts` plus a heap: 1 won by the mover, 0 lost, < 0 stopped. */
static int sum_wins(Piece *parts, int np, int heap) {
    if (np == 0) return heap != 0;
    int largest = 0;
    for (int k = 1; k < np; k++) {
        int a = key_size(parts[k].p, parts[k].len), b = key_size(parts[largest].p, parts[largest].len);
        if (a > b || (a == b && cmp_piece(&parts[k], &parts[largest]) > 0)) largest = k;
    }
    for (int k = 0; k < np; k++) {
        if (k == largest) continue;
        int n = nimber_of(parts[k].p, parts[k].len);
        if (n < 0) return n;
        heap ^= n;
    }
    return wins_with_heap(parts[largest].p, parts[largest].len, heap);
}

static int wins_with_heap(const uint8_t *comp, int len, int heap) {
    uint32_t h = hash_bytes(comp, len);
    Entry *e = table_find(&nimbers, comp, len, h);
    if (e) return e->value != heap;
    uint8_t key[MAXT * 2];
    memcpy(key, comp, len);
    key[len] = (uint8_t)heap;
    uint32_t hk = hash_bytes(key, len + 1);
    e = table_find(&heaps, key, len + 1, hk);
    if (e) return e->value;
    if (past_deadline()) return -1;
    Entry *opts = options_of(comp, len);
    if (!opts) return -2;
    long dlen = opts->dlen;
    uint8_t *data = malloc(dlen ? dlen : 1);  /* the table may be emptied while we search */
    memcpy(data, opts->data, dlen);
    int result = 0;
    /* options whose parts all have known nimbers settle at once */
    for (long i = 0; i < dlen && !result;) {
        long j = i;
        while (data[j] != OPTION_END) j++;
        Piece parts[MAXR];
        int np = split_game(data + i, (int)(j - i), parts), value = 0, all = 1;
        for (int k = 0; k < np && all; k++) {
            Entry *n = table_find(&nimbers, parts[k].p, parts[k].len, hash_bytes(parts[k].p, parts[k].len));
            if (n) value ^= n->value; else all = 0;
        }
        if (all && value == heap) result = 1;
        i = j + 1;
    }
    for (int smaller = 0; smaller < heap && !result; smaller++) {
        int r = wins_with_heap(comp, len, smaller);
        if (r < 0) { free(data); return r; }
        if (r == 0) result = 1;
    }
    for (long i = 0; i < dlen && !result;) {
        long j = i;
        while (data[j] != OPTION_END) j++;
        Piece parts[MAXR];
        int np = split_game(data + i, (int)(j - i), parts);
        int r = sum_wins(parts, np, heap);
        if (r < 0) { free(data); return r; }
        if (r == 0) result = 1;
        i = j + 1;
    }
    free(data);
    if (!result) { table_add(&nimbers, comp, len, h)->value = heap; queue_result('n', comp, len, heap, key_lives(comp, len)); }
    table_add(&heaps, key, len + 1, hk)->value = result;
    queue_result('h', key, len + 1, result, key_lives(comp, len));
    return result;
}

/* A normal-play outcome of one component plus a heap settled outside the core, as sp_misere_learn. */
void sp_normal_learn(const uint8_t *comp, int len, int heap, int wins) {
    uint8_t key[MAXT * 2];
    if (len >= MAXT * 2) return;
    memcpy(key, comp, len);
    key[len] = (uint8_t)heap;
    uint32_t h = hash_bytes(key, len + 1);
    if (!table_find(&heaps, key, len + 1, h)) {
        table_add(&heaps, key, len + 1, h)->value = wins;
        queue_result('h', key, len + 1, wins, key_lives(comp, len));
    }
}

/* The normal-play outcome of a game plus a nim heap: 1 won, 0 lost, -1 stopped at `deadline`, -2 too large. */
int sp_normal(const uint8_t *game, int len, int heap, double deadline) {
    deadline_at = deadline;
    Piece parts[MAXR];
    int np = split_game(game, len, parts);
    return sum_wins(parts, np, heap);
}

/* Every table's limit (`outcomes` entries for the outcome, nimber, heap and form tables, `listings` for
 * the options'); 0 for the defaults. The tests make them tiny, to search through many generations. */
void sp_table_limits(long outcomes_limit, long listings) {
    Table *large[] = {&outcomes, &form_outcomes, &comp_forms, &nimbers, &heaps};
    for (size_t i = 0; i < sizeof large / sizeof *large; i++) large[i]->limit = outcomes_limit > 0 ? (size_t)outcomes_limit : TABLE_LIMIT;
    listed.limit = listings > 0 ? (size_t)listings : LISTED_LIMIT;
}

void sp_reset(void) {
    table_clear(&outcomes); table_clear(&listed); table_clear(&nimbers); table_clear(&heaps);
    table_clear(&form_outcomes);
    forms_reset();
}

/* ---------- the store: what the core solved, out to Python and back in ----------
 * Python keeps the results of large positions in the shared SQLite store (store.py); a new process
 * puts them back into these tables before its first search, and after each search the new ones go out. */


void sp_export_from(int min_lives) { export_lives = min_lives; }

/* The queued results (read with sp_result), the queue emptied; the length of it all. */
long sp_export(void) {
    if (queue_len > result_cap) { result_cap = queue_len * 2; result_buf = realloc(result_buf, result_cap); }
    if (queue_len) memcpy(result_buf, queue, queue_len);
    long n = (long)queue_len;
    queue_len = 0;
    return n;
}

/* Stored results back into their tables, in the format sp_export writes ('n', 'h' or 'm', the value, a
 * 2-byte length, the key): one call for the whole store, which may hold hundreds of thousands. */
void sp_import(const uint8_t *records, long len) {
    long i = 0;
    while (i + 4 <= len) {
        int kind = records[i], value = records[i + 1], size = records[i + 2] << 8 | records[i + 3];
        const uint8_t *key = records + i + 4;
        Table *t = kind == 'n' ? &nimbers : kind == 'h' ? &heaps : has_form(key, size) ? &form_outcomes : &outcomes;
        uint32_t h = hash_bytes(key, size);
        if (!table_find(t, key, size, h)) table_add(t, key, size, h)->value = value;
        i += 4 + size;
    }
}
