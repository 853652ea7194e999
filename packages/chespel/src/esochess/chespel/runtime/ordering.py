"""Move ordering and the static exchange: which moves the search tries first, and which
captures lose material however the exchange on the target cell goes
(docs/reference/chespel.md#the-search, issue 17).

Everything here is deterministic: ties keep the move generator's order.
"""

from __future__ import annotations

import chess
from chess import BB_SQUARES, scan_reversed

SEE_VALUES = (0, 1000, 3000, 3000, 5000, 9000, 100_000)
"""Exchange values in milli-units (pawn = 1.000), indexed by python-chess piece type."""
# MVV-LVA weights: victim value dominates, attacker value breaks ties (king last).
_VICTIM = (0, 1, 3, 3, 5, 9, 0)
_ATTACKER = (0, 1, 3, 3, 5, 9, 10)
TT_MOVE_BONUS = 1 << 30
CAPTURE_BONUS = 1 << 26
KILLER_BONUS = 1 << 24
HISTORY_LIMIT = 1 << 22
"""History scores stay below the killer bonus (they are halved when one gets there)."""


class History:
    """Killer moves per ply and the history heuristic (quiet moves that caused cut-offs)."""

    def __init__(self, plies: int) -> None:
        self.plies = plies
        self.clear()

    def clear(self) -> None:
        """Forget everything (a new game)."""
        self.killers: list[list[chess.Move | None]] = [[None, None] for _ in range(self.plies)]
        self.scores = [0] * (2 * 64 * 64)
        self.forget()

    def age(self) -> None:
        """Between searches: halve the history so that recent cut-offs weigh more."""
        self.scores = [score >> 1 for score in self.scores]
        self.killers = [[None, None] for _ in range(self.plies)]
        self.forget()

    def forget(self) -> None:
        """Drop the journal of changes (no node holds a mark: between root moves)."""
        self.journal: list[tuple[int, int]] = []
        """(index, score before the change) for every change, in order; index -1 marks a
        halving of every score, whose scores before are in `halved` by journal position."""
        self.halved: dict[int, list[int]] = {}

    def mark(self) -> int:
        """A point in time whose scores `order_quiets` can still order by."""
        return len(self.journal)

    def cutoff(self, turn: bool, move: chess.Move, ply: int, depth: int,
               tried: list[chess.Move]) -> None:
        """A quiet `move` refuted the position: remember it; the quiet moves tried before it
        failed (`tried`) lose a little."""
        killers = self.killers[min(ply, self.plies - 1)]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        base = 4096 if turn else 0
        scores = self.scores
        journal = self.journal
        bonus = depth * depth
        index = base + move.from_square * 64 + move.to_square
        journal.append((index, scores[index]))
        scores[index] += bonus
        for other in tried:
            at = base + other.from_square * 64 + other.to_square
            journal.append((at, scores[at]))
            scores[at] = max(0, scores[at] - bonus)
        if scores[index] >= HISTORY_LIMIT:
            self.halved[len(journal)] = scores
            journal.append((-1, 0))
            self.scores = [score >> 1 for score in scores]

    def order_quiets(self, board: chess.Board, moves: list[chess.Move],
                     mark: int) -> list[chess.Move]:
        """Quiet moves by their history scores as they stood at `mark` (ties keep the
        generator's order): what `order` gave for them before the moves searched since."""
        before: dict[int, int] = {}
        scores = self.scores
        for position in range(mark, len(self.journal)):
            index, score = self.journal[position]
            if index < 0:
                scores = self.halved[position]
                break
            if index not in before:
                before[index] = score
        base = 4096 if board.turn else 0
        scored = []
        for index, move in enumerate(moves):
            at = base + move.from_square * 64 + move.to_square
            weight = before.get(at)
            scored.append((-(scores[at] if weight is None else weight), index, move))
        scored.sort()
        return [entry[2] for entry in scored]

    def order(self, board: chess.Board, moves: list[chess.Move], tt_move: chess.Move | None,
              ply: int) -> list[chess.Move]:
        """TT move, then captures and promotions by MVV-LVA, killers, history."""
        first, second = self.killers[min(ply, self.plies - 1)]
        # Moves are compared by from * 64 + to, then promotion (a Move's own `==` costs
        # several times more, and this loop runs for every move of every node).
        tt_at, first_at, second_at = move_index(tt_move), move_index(first), move_index(second)
        them = board.occupied_co[not board.turn]
        base = 4096 if board.turn else 0
        scores = self.scores
        ep = board.ep_square
        pawns = board.pawns
        scored = []
        for index, move in enumerate(moves):
            to = move.to_square
            at = move.from_square * 64 + to
            if at == tt_at and tt_move is not None and move.promotion == tt_move.promotion:
                weight = TT_MOVE_BONUS
            elif them & BB_SQUARES[to] or move.promotion:
                weight = capture_weight(board, move)
            elif to == ep and pawns & BB_SQUARES[move.from_square]:
                weight = CAPTURE_BONUS + 16 - 1
            elif at == first_at:
                weight = KILLER_BONUS + 1
            elif at == second_at:
                weight = KILLER_BONUS
            else:
                weight = scores[base + at]
            scored.append((-weight, index, move))
        scored.sort()
        return [entry[2] for entry in scored]


_PROMOTIONS = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)


def quiet_promotions(board: chess.Board) -> list[chess.Move]:
    """The pseudo-legal promotions without capture, in python-chess's order."""
    seventh = chess.BB_RANK_7 if board.turn else chess.BB_RANK_2
    promoting = board.pawns & board.occupied_co[board.turn] & seventh
    if not promoting:
        return []
    return list(board.generate_pseudo_legal_moves(promoting, ~board.occupied))


def quiet_moves(board: chess.Board) -> list[chess.Move]:
    """The other pseudo-legal moves (no capture, promotion or en passant), in the order
    python-chess generates them — piece moves (origin and target highest first), castling,
    single then double pawn pushes — computed from its attack tables."""
    turn = board.turn
    ours = board.occupied_co[turn]
    occupied = board.occupied
    empty = ~occupied & chess.BB_ALL
    knights = board.knights
    kings = board.kings
    diagonal = board.bishops | board.queens
    straight = board.rooks | board.queens
    move = chess.Move
    moves = []
    for origin in scan_reversed(ours & ~board.pawns):
        bit = BB_SQUARES[origin]
        if knights & bit:
            attacks = chess.BB_KNIGHT_ATTACKS[origin]
        elif kings & bit:
            attacks = chess.BB_KING_ATTACKS[origin]
        else:
            attacks = slider_attacks(origin, bit, diagonal, straight, occupied)
        for target in scan_reversed(attacks & empty):
            moves.append(move(origin, target))
    moves += board.generate_castling_moves()
    if turn:
        pawns = board.pawns & ours & ~chess.BB_RANK_7
        single = pawns << 8 & empty
        double = single << 8 & empty & (chess.BB_RANK_3 | chess.BB_RANK_4)
        step = 8
    else:
        pawns = board.pawns & ours & ~chess.BB_RANK_2
        single = pawns >> 8 & empty
        double = single >> 8 & empty & (chess.BB_RANK_6 | chess.BB_RANK_5)
        step = -8
    moves += [move(target - step, target) for target in scan_reversed(single)]
    moves += [move(target - 2 * step, target) for target in scan_reversed(double)]
    return moves


def slider_attacks(origin: int, bit: int, diagonal: int, straight: int, occupied: int) -> int:
    """The cells a bishop, rook or queen on `origin` (its bit `bit`) attacks: along the
    diagonals if it is among `diagonal`, along rank and file if among `straight`."""
    attacks = 0
    if diagonal & bit:
        attacks = chess.BB_DIAG_ATTACKS[origin][chess.BB_DIAG_MASKS[origin] & occupied]
    if straight & bit:
        attacks |= (chess.BB_RANK_ATTACKS[origin][chess.BB_RANK_MASKS[origin] & occupied]
                    | chess.BB_FILE_ATTACKS[origin][chess.BB_FILE_MASKS[origin] & occupied])
    return attacks


def is_quiet(board: chess.Board, move: chess.Move) -> bool:
    """Whether a move without promotion is neither a capture nor en passant (then `order`
    would weigh it as a killer or by its history)."""
    to = move.to_square
    return not (board.occupied_co[not board.turn] & BB_SQUARES[to]) and not (
        to == board.ep_square and board.pawns & BB_SQUARES[move.from_square])


def move_index(move: chess.Move | None) -> int:
    """from * 64 + to of a move, -1 for none: with the promotion, what tells moves apart."""
    return -1 if move is None else move.from_square * 64 + move.to_square


def king_attacked(board: chess.Board, color: bool) -> bool:
    """Whether the king of `color` is attacked: `board.is_check()` for the side to move,
    `board.was_into_check()` for the other, from the attack tables, the cheap attackers
    (pawns, knights, king) first."""
    king_bb = board.kings & board.occupied_co[color]
    if not king_bb:
        return False
    king = king_bb.bit_length() - 1
    them = board.occupied_co[not color]
    if (chess.BB_PAWN_ATTACKS[color][king] & board.pawns
            | chess.BB_KNIGHT_ATTACKS[king] & board.knights
            | chess.BB_KING_ATTACKS[king] & board.kings) & them:
        return True
    occupied = board.occupied
    queens = board.queens
    return bool(((chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied]
                  & (board.bishops | queens))
                 | ((chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
                     | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied])
                    & (board.rooks | queens))) & them)


def quiet_gives_check(board: chess.Board, move: chess.Move) -> bool:
    """`board.gives_check(move)` for a quiet pseudo-legal move (no capture, promotion or en
    passant) without playing it: the moved piece attacks the enemy king from its target, or
    leaving its cell uncovers one of our sliders. Castling asks python-chess."""
    turn = board.turn
    king_bb = board.kings & board.occupied_co[not turn]
    if not king_bb:
        return False
    origin, target = move.from_square, move.to_square
    piece = board.piece_type_at(origin)
    if piece == chess.KING and board.is_castling(move):
        return board.gives_check(move)
    occupied = (board.occupied & ~BB_SQUARES[origin]) | BB_SQUARES[target]
    if piece == chess.PAWN:
        attacks = chess.BB_PAWN_ATTACKS[turn][target]
    elif piece == chess.KNIGHT:
        attacks = chess.BB_KNIGHT_ATTACKS[target]
    elif piece == chess.KING:
        attacks = chess.BB_KING_ATTACKS[target]
    else:
        attacks = 0
        if piece != chess.ROOK:
            attacks = chess.BB_DIAG_ATTACKS[target][chess.BB_DIAG_MASKS[target] & occupied]
        if piece != chess.BISHOP:
            attacks |= (chess.BB_RANK_ATTACKS[target][chess.BB_RANK_MASKS[target] & occupied]
                        | chess.BB_FILE_ATTACKS[target][chess.BB_FILE_MASKS[target] & occupied])
    if attacks & king_bb:
        return True
    king = king_bb.bit_length() - 1
    ours = board.occupied_co[turn] & ~BB_SQUARES[origin]
    queens = board.queens
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied] \
        & (board.bishops | queens)
    straight = (chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
                | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied]) \
        & (board.rooks | queens)
    return bool((diagonal | straight) & ours)


def capture_weight(board: chess.Board, move: chess.Move) -> int:
    """MVV-LVA weight of a capture or promotion (en passant counts as pawn takes pawn)."""
    victim = board.piece_type_at(move.to_square) or (chess.PAWN if board.is_en_passant(move) else 0)
    attacker = board.piece_type_at(move.from_square) or 0
    return (CAPTURE_BONUS + _VICTIM[victim] * 16 - _ATTACKER[attacker]
            + (_VICTIM[move.promotion] * 16 if move.promotion else 0))


def order_captures(board: chess.Board, moves: list[chess.Move]) -> list[chess.Move]:
    """Captures by MVV-LVA, generator order for ties."""
    return [entry[0] for entry in typed_captures(board, moves)]


def typed_captures(board: chess.Board,
                   moves: list[chess.Move]) -> list[tuple[chess.Move, int, int]]:
    """(capture, victim type, attacker type) by MVV-LVA, generator order for ties; the
    victim of en passant is a pawn, that of a promotion without capture 0 (the types are
    looked up once, for the ordering, the pruning and the exchange test)."""
    scored = []
    for index, move in enumerate(moves):
        victim = board.piece_type_at(move.to_square) or (
            chess.PAWN if board.is_en_passant(move) else 0)
        attacker = board.piece_type_at(move.from_square) or 0
        promotion = move.promotion
        weight = (CAPTURE_BONUS + _VICTIM[victim] * 16 - _ATTACKER[attacker]
                  + (_VICTIM[promotion] * 16 if promotion else 0))
        scored.append((-weight, index, move, victim, attacker))
    scored.sort()
    return [(entry[2], entry[3], entry[4]) for entry in scored]


def sorted_captures(board: chess.Board, extra: list[chess.Move]
                    ) -> list[tuple[int, int, int, int, int | None, int, int]]:
    """`typed_captures(board, list(board.generate_pseudo_legal_captures()) + extra)` (extra:
    promotions without capture) as (key, index, origin, target, promotion, victim, attacker)
    in the same order, computed from python-chess's attack tables without its generator
    (which also asks for castling moves; the king's captures come last here, which changes
    no tie: only they have the king's attacker weight), the piece types read from the
    bitboards while generating, and no `Move` made: the quiescence search prunes most
    captures before playing them."""
    turn = board.turn
    ours = board.occupied_co[turn]
    them = board.occupied_co[not turn]
    occupied = board.occupied
    pawns, knights, bishops = board.pawns, board.knights, board.bishops
    rooks, queens = board.rooks, board.queens
    minor = knights | bishops
    diagonal = bishops | queens
    straight = rooks | queens
    squares = BB_SQUARES
    # a victim's sort weight (victim value * 16) and type, by cell
    weights = [0] * 64
    types = [0] * 64
    for mask, weight, kind in ((pawns & them, 16, 1), (knights & them, 48, 2),
                               (bishops & them, 48, 3), (rooks & them, 80, 4),
                               (queens & them, 144, 5), (board.kings & them, 0, 6)):
        while mask:
            cell = mask.bit_length() - 1
            mask ^= squares[cell]
            weights[cell] = weight
            types[cell] = kind
    scored: list[tuple[int, int, int, int, int | None, int, int]] = []
    add = scored.append
    base = -CAPTURE_BONUS
    index = 0
    pieces = ours & ~pawns & ~board.kings
    while pieces:  # python-chess's order: origin highest first, then target highest first
        origin = pieces.bit_length() - 1
        bit = squares[origin]
        pieces ^= bit
        if knights & bit:
            targets = chess.BB_KNIGHT_ATTACKS[origin] & them
            attacker = 2
        else:
            targets = slider_attacks(origin, bit, diagonal, straight, occupied) & them
            attacker = 3 if minor & bit else 4 if rooks & bit else 5
        cost = base + _ATTACKER[attacker]
        while targets:
            target = targets.bit_length() - 1
            targets ^= squares[target]
            add((cost - weights[target], index, origin, target, None, types[target], attacker))
            index += 1
    pawn_attacks = chess.BB_PAWN_ATTACKS[turn]
    cost = base + 1
    ours_pawns = pawns & ours
    while ours_pawns:
        origin = ours_pawns.bit_length() - 1
        ours_pawns ^= squares[origin]
        targets = pawn_attacks[origin] & them
        while targets:
            target = targets.bit_length() - 1
            targets ^= squares[target]
            if target >= 56 or target < 8:
                for promotion in _PROMOTIONS:
                    add((cost - weights[target] - _VICTIM[promotion] * 16, index, origin,
                         target, promotion, types[target], 1))
                    index += 1
            else:
                add((cost - weights[target], index, origin, target, None, types[target], 1))
                index += 1
    king = board.kings & ours
    if king:
        origin = king.bit_length() - 1
        cost = base + 10
        for target in scan_reversed(chess.BB_KING_ATTACKS[origin] & them):
            add((cost - weights[target], index, origin, target, None, types[target], 6))
            index += 1
    if board.ep_square is not None:
        for move in board.generate_pseudo_legal_ep():
            add((base + 1 - 16, index, move.from_square, move.to_square, None, 1, 1))
            index += 1
    for move in extra:
        promoted = move.promotion
        add((base + 1 - (_VICTIM[promoted] * 16 if promoted else 0), index,
             move.from_square, move.to_square, promoted, 0, 1))
        index += 1
    scored.sort()
    return scored


def see(board: chess.Board, move: chess.Move) -> int:
    """The static exchange evaluation of a capture, in milli-units for the side to move:
    both sides recapture on the target cell with their least valuable piece (x-rays seen),
    and either may stop when going on would lose."""
    to = move.to_square
    victim = board.piece_type_at(to)
    if victim is None:
        victim = chess.PAWN if board.is_en_passant(move) else 0
    attacker = board.piece_type_at(move.from_square) or 0
    occupied = board.occupied & ~BB_SQUARES[move.from_square]
    if victim == chess.PAWN and board.is_en_passant(move):
        occupied &= ~BB_SQUARES[to + (-8 if board.turn else 8)]
    gains = [SEE_VALUES[victim] + (SEE_VALUES[move.promotion] - SEE_VALUES[chess.PAWN]
                                   if move.promotion else 0)]
    on_square = SEE_VALUES[move.promotion or attacker]
    side = not board.turn
    while True:
        attackers = board.attackers_mask(side, to, occupied) & occupied
        if not attackers:
            break
        piece_type, square = _least_valuable(board, attackers)
        gains.append(on_square - gains[-1])
        on_square = SEE_VALUES[piece_type]
        occupied &= ~BB_SQUARES[square]
        side = not side
        if piece_type == chess.KING and board.attackers_mask(side, to, occupied) & occupied:
            gains.pop()  # the king cannot capture into an attacked cell
            break
    while len(gains) > 1:
        last = gains.pop()
        gains[-1] = -max(-gains[-1], last)
    return gains[0]


def _least_valuable(board: chess.Board, attackers: int) -> tuple[int, int]:
    for piece_type, mask in ((chess.PAWN, board.pawns), (chess.KNIGHT, board.knights),
                             (chess.BISHOP, board.bishops), (chess.ROOK, board.rooks),
                             (chess.QUEEN, board.queens), (chess.KING, board.kings)):
        found = attackers & mask
        if found:
            return piece_type, (found & -found).bit_length() - 1
    raise AssertionError("attackers without a piece")


def losing_capture(board: chess.Board, move: chess.Move) -> bool:
    """Whether a capture loses material by the exchange (never for a cheaper attacker)."""
    return loses_exchange(board, move, board.piece_type_at(move.to_square) or chess.PAWN,
                          board.piece_type_at(move.from_square) or 0)


def loses_exchange(board: chess.Board, move: chess.Move, victim: int, attacker: int) -> bool:
    """`losing_capture` with the victim's type (a pawn for an empty target) and the
    attacker's type known."""
    if SEE_VALUES[victim] >= SEE_VALUES[attacker] or move.promotion:
        return False
    return see(board, move) < 0
