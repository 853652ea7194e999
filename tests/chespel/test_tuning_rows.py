"""The tuner's feature rows: workers pack them into arrays, the parent stacks the chunks
into the fit's sparse matrix. Checked against a dense construction of the same rows."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.chespel.tuning.tune import _Chunk, _data
from esochess.chespel.tuning.weights import Weight

WEIGHTS = [Weight(index=i, rule="r", line=1, column=1 + 4 * i, spelling="0.1",
                  millis=100 * i - 300, negated=False) for i in range(8)]

feature = st.dictionaries(st.integers(0, len(WEIGHTS) - 1),
                          st.integers(-5, 5).map(float), max_size=4)
row = st.tuples(st.floats(0, 1), st.integers(0, 50), st.integers(-9000, 9000), feature,
                st.sampled_from([1, -1]))
chunk_rows = st.lists(row, min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.lists(chunk_rows, min_size=1, max_size=4),
       st.sets(st.integers(0, len(WEIGHTS) - 1), max_size=3))
def test_stacked_chunks_are_the_rows_in_order(chunks: list[list[tuple[float, int, int,
                                                                       dict[int, float], int]]],
                                               excluded: set[int]) -> None:
    packed = []
    for rows in chunks:
        chunk = _Chunk()
        for target, game, score, grad, sign in rows:
            chunk.add(target, game, score, grad, sign)
        packed.append(chunk.packed())
    data, used = _data(packed, WEIGHTS, excluded)

    flat = [r for rows in chunks for r in rows]
    dense = np.zeros((len(flat), len(WEIGHTS)))
    for i, (_, _, _, grad, sign) in enumerate(flat):
        for column, coefficient in grad.items():
            dense[i, column] = sign * coefficient
    present = {column for _, _, _, grad, _ in flat for column, c in grad.items() if c}
    assert used == sorted(present - excluded)
    assert np.array_equal(data.x.toarray(), dense[:, used])
    assert data.y.tolist() == [target for target, *_ in flat]
    assert data.games.tolist() == [game for _, game, *_ in flat]
    start = np.array([WEIGHTS[i].millis / 1000 for i in used])
    scores = np.array([sign * score for _, _, score, _, sign in flat]) / 1000
    assert np.allclose(data.c, scores - dense[:, used] @ start)
