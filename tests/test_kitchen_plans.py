"""Hand-computed plans on generated maps (domains/paracook/generated/*_s42.chrono).

Every number below was worked out by hand from the map art (paths are spelled out cell by cell; MOVE = 1
per tile, INTERACT = 0, CUT = 4, POT = 16, PAN = 24, WASH = 6, RETURN = 10) and is asserted exactly:
OCT, each agent's move / process / wait / idle time and distance, utilisation, the appendix-G bounds
(d = W + H = 18) and the final state.  Notation: [a, b] is an action's start and end time.
"""
from fractions import Fraction

from kitchen_util import IN, F, M, P, W, grade, held, inside, on, simulate


def budget(move, process, wait, idle, interact=0):
    return {"move": move, "interact": interact, "process": process, "wait": wait, "idle": idle}


# ------------------------------------------------------------------------------------------------ burger
# burger_s42 (x = column, y = row):
#     0123456789
#   0 C.t...5TC3     C chopping_board1 (0,0) | t table1 (2,0) | 5 dispenser1 cheese (6,0) | T table2 (7,0) plate1
#   1 ....P.....     C chopping_board2 (8,0) | 3 dispenser2 lettuce (9,0) | P stove1 (4,1) pan1
#   2 .#.P......     # wall (1,2) | P stove2 (3,2) pan2
#   3 .....S....     S serving_window1 (5,3)
#   4 41..#..t..     4 dispenser3 tomato (0,4) | 1 dispenser4 bread (1,4) | # wall (4,4) | t table3 (7,4)
#   5 K....T....     K sink1 (0,5) | T table4 (5,5) plate2
#   6 ....2.....     2 dispenser5 meat (4,6)
#   7 ....R.....     R plate_return1 (4,7)
# The only crossings between columns <= 4 and >= 5 are (4,0)-(5,0) and (4,2)-(5,2): (4,1) is a stove,
# (5,3) the window, (4,4) a wall, (5,5) a table, (4,6) a dispenser, (4,7) the plate return.
BURGER_B = {
    "agent1": [
        M(5, 6),   # 0 (9,7)->(8,7)->(7,7)->(6,7)->(5,7)->(5,6): 5                 [0, 5]
        IN("dispenser5"),      # 1 meat1 (dispenser5 (4,6) is left of (5,6))        [5]
        M(8, 1),   # 2 (5,6)->(6,6)->(6,5)->(6,4)->(6,3)->(6,2)->(6,1)->(7,1)->(8,1): 8  [5, 13]
        IN("chopping_board2"),  # 3 put meat1 on the board (8,0), above (8,1)       [13]
        P("chopping_board2"),  # 4 chop                                              [13, 17]
        IN("chopping_board2"),  # 5 pick up the chopped meat                          [17]
        M(4, 2),   # 6 (8,1)->(7,1)->(6,1)->(5,1)->(5,2)->(4,2): 5                    [17, 22]
        IN("stove1"),          # 7 meat1 into pan1: frying runs [22, 46]             [22]
        F,
    ],
    "agent2": [
        M(2, 4),   # 0 (7,7)->(7,6)->(6,6)->(6,5)->(6,4)->(6,3)->(6,2)->(5,2)->(4,2)->(4,3)->(3,3)->(3,4)->(2,4): 12
                   #   (Manhattan 8, plus going up to row 2 to cross and back down)         [0, 12]
        IN("dispenser4"),      # 1 bread1 (dispenser4 (1,4) is left of (2,4))       [12]
        M(4, 5),   # 2 (2,4)->(2,5)->(3,5)->(4,5): 3                                  [12, 15]
        IN("table4"),          # 3 bread1 onto plate2 (table4 (5,5) right of (4,5))  [15]
        IN("table4"),          # 4 pick up plate2                                    [15]
        M(4, 2),   # 5 (4,5)->(3,5)->(3,4)->(3,3)->(4,3)->(4,2): 5 (wall at (4,4))      [15, 20]
        W(26),     # 6 until the meat is cooked at 22 + 24 = 46                       [20, 46]
        IN("stove1"),          # 7 pan1's cooked meat onto plate2 (the frying completion at 46 runs
                               #   before the start at 46)                           [46]
        M(4, 3),   # 8 one step down; (4,3) is left of the window (5,3)              [46, 47]
        IN("serving_window1"),  # 9 serve burger_basic                                [47]
        F,
    ],
}


def test_burger_two_agents_cooking_and_plating():
    rep = grade("burger_s42_o1_a2", BURGER_B)
    assert rep.valid, rep.to_text()
    m = rep.metrics
    assert m["oct"] == 47 and m["makespan"] == 47 and m["success"] is True
    # agent1 moves 5 + 8 + 5 = 18, chops 4, ends at 22 (idle 47 - 22 = 25);
    # agent2 moves 12 + 3 + 5 + 1 = 21, waits 26, ends at 47.
    assert m["time_budget"] == {"agent1": budget(18, 4, 0, 25), "agent2": budget(21, 0, 26, 0)}
    assert m["distance"] == {"agent1": 18, "agent2": 21} and m["md"] == Fraction(39, 2)
    # utilisation: agent1 (22 - 0) / 22 = 1, agent2 (47 - 26) / 47 = 21/47 -> mean 34/47
    assert m["utilisation"] == Fraction(34, 47)
    # T_max: bread (raw) d + d(plate) = 36; meat (cooked) d + (d + CUT) + (d + PAN) + d = 18+22+42+18 = 100;
    # serve d = 18 -> 154.  D_max: 36 + 72 + 18 = 126.  nOCT = 47/154.
    assert (m["T_max"], m["D_max"], m["noct"], m["poct"], m["pmd"]) == (154, 126, Fraction(47, 154), 47,
                                                                        Fraction(39, 2))
    sim = simulate("burger_s42_o1_a2", BURGER_B)
    # plate2 came back dirty at 47 + 10 = 57; pan1 is empty on stove1; plate1 never moved
    assert on(sim, "plate_return1") == ["plate2"] and sim.st.get("clean", "plate2") is False
    assert on(sim, "stove1") == ["pan1"] and inside(sim, "pan1") == [] and on(sim, "table2") == ["plate1"]
    assert sim.st.pos == {"agent1": (4, 2), "agent2": (4, 3)} and held(sim, "agent1") == held(sim, "agent2") == []
    assert sim.served == [("burger_basic", 47, "agent2", 9)]


# ------------------------------------------------------------------------------------------------ sashimi
# sashimi_s42:
#     0123456789
#   0 ....K.....     K sink1 (4,0)
#   1 ........2.     2 dispenser1 shrimp (8,1)
#   2 .........T     T table1 (9,2) plate1
#   3 ....#..S..     # wall (4,3) | S serving_window1 (7,3)
#   4 ....#...C.     # wall (4,4) | C chopping_board1 (8,4)
#   5 .T..C1..tt     T table2 (1,5) plate2 | C chopping_board2 (4,5) | 1 dispenser2 fish (5,5) | t (8,5) (9,5)
#   6 ...R......     R plate_return1 (3,6)
#   7 ..........
# (4,6) touches chopping_board2 (above) and plate_return1 (left); (5,6) touches the fish dispenser (above).
# Three sashimi_fish with two plates: the third dish needs plate1 back (dirty at 17 + 10 = 27) and washed.
SASHIMI_C = {
    "agent1": [
        M(8, 2),   # 0 (6,4)->(6,3)->(6,2)->(7,2)->(8,2): 4                            [0, 4]
        IN("table1"),          # 1 pick up plate1 (table1 (9,2) right of (8,2))     [4]
        M(4, 6),   # 2 (8,2)->(7,2)->(6,2)->(6,3)->(6,4)->(6,5)->(6,6)->(5,6)->(4,6): 8 [4, 12]
        IN("chopping_board2"),  # 3 fish1 (chopped at 8) onto plate1; at t = 12 agent1 acts before agent2
        M(6, 3),   # 4 (4,6)->(5,6)->(6,6)->(6,5)->(6,4)->(6,3): 5                     [12, 17]
        IN("serving_window1"),  # 5 serve dish 1 (window (7,3) right of (6,3))       [17]
        M(4, 6),   # 6 back: 5                                                         [17, 22]
        W(5),      # 7                                                                 [22, 27]
        IN("plate_return1"),   # 8 dirty plate1 is back at 27 (the return event runs before the start)
        M(4, 1),   # 9 (4,6)->(5,6)->(6,6)->(6,5)->(6,4)->(6,3)->(6,2)->(5,2)->(4,2)->(4,1): 9  [27, 36]
        IN("sink1"),           # 10 plate1 into the sink (4,0), above (4,1)         [36]
        P("sink1"),            # 11 wash                                             [36, 42]
        IN("sink1"),           # 12 pick up clean plate1                             [42]
        M(4, 6),   # 13 the same 9 cells back                                          [42, 51]
        IN("chopping_board2"),  # 14 fish3 (chopped at 38) onto plate1               [51]
        M(6, 3),   # 15 5                                                              [51, 56]
        IN("serving_window1"),  # 16 serve dish 3                                     [56]
        F,
    ],
    "agent2": [
        M(5, 6),   # 0 (3,7)->(4,7)->(5,7)->(5,6): 3                                   [0, 3]
        IN("dispenser2"),      # 1 fish1                                             [3]
        M(4, 6),   # 2 1                                                               [3, 4]
        IN("chopping_board2"),  # 3 put fish1 down                                    [4]
        P("chopping_board2"),  # 4 chop                                              [4, 8]
        M(5, 6),   # 5 1                                                               [8, 9]
        IN("dispenser2"),      # 6 fish2                                             [9]
        M(4, 6),   # 7 1                                                               [9, 10]
        W(2),      # 8 the board still holds fish1 until agent1 takes it at 12        [10, 12]
        IN("chopping_board2"),  # 9 put fish2 down (after agent1's action #3 at 12)  [12]
        P("chopping_board2"),  # 10 chop                                             [12, 16]
        M(2, 5),   # 11 (4,6)->(4,7)->(3,7)->(2,7)->(2,6)->(2,5): 5                    [16, 21]
        IN("table2"),          # 12 pick up plate2 (table2 (1,5) left of (2,5))     [21]
        M(3, 5),   # 13 1 (chopping_board2 (4,5) right of (3,5))                       [21, 22]
        IN("chopping_board2"),  # 14 fish2 onto plate2                                [22]
        M(6, 3),   # 15 (3,5)->(3,4)->(3,3)->(3,2)->(4,2)->(5,2)->(5,3)->(6,3): 7      [22, 29]
        IN("serving_window1"),  # 16 serve dish 2; plate2 comes back at 39            [29]
        M(5, 6),   # 17 (6,3)->(6,4)->(6,5)->(6,6)->(5,6): 4                           [29, 33]
        IN("dispenser2"),      # 18 fish3                                            [33]
        M(4, 6),   # 19 1                                                              [33, 34]
        IN("chopping_board2"),  # 20 put fish3 down                                   [34]
        P("chopping_board2"),  # 21 chop                                             [34, 38]
        F,
    ],
}


def test_sashimi_plate_cycle_with_washing():
    rep = grade("sashimi_s42_o3_a2", SASHIMI_C)
    assert rep.valid, rep.to_text()
    m = rep.metrics
    assert m["oct"] == 56 and m["served"] == 3
    # agent1 moves 4+8+5+5+9+9+5 = 45, washes 6, waits 5, ends at 56;
    # agent2 moves 3+1+1+1+5+1+7+4+1 = 24, chops 3 x 4 = 12, waits 2, ends at 38 (idle 18).
    assert m["time_budget"] == {"agent1": budget(45, 6, 5, 0), "agent2": budget(24, 12, 2, 18)}
    assert m["md"] == Fraction(69, 2)
    # utilisation: (56 - 5)/56 and (38 - 2)/38 = 18/19 -> mean (51/56 + 18/19) / 2
    assert m["utilisation"] == (Fraction(51, 56) + Fraction(18, 19)) / 2
    # T_max: per dish fish (chopped) d + d + CUT = 40, + d plate, + d serve = 76; x3 = 228; one dish more
    # than the 2 plates: + d + RETURN + d + WASH = 52 -> 280.  D_max: 3 x (36 + 18 + 18) + 2d = 252.
    assert (m["T_max"], m["D_max"]) == (280, 252)
    sim = simulate("sashimi_s42_o3_a2", SASHIMI_C)
    assert [(d, t) for d, t, _, _ in sim.served] == [("sashimi_fish", 17), ("sashimi_fish", 29),
                                                     ("sashimi_fish", 56)]
    # both plates end dirty on the plate return (plate2 back at 39, plate1 again at 66)
    assert on(sim, "plate_return1") == ["plate1", "plate2"]
    assert sim.st.get("clean", "plate1") is False and on(sim, "chopping_board2") == []


# ------------------------------------------------------------------------------------------------ sushi
# sushi_s42:
#     0123456789
#   0 ..........
#   1 T..1t.....     T table1 (0,1) plate1 | 1 dispenser1 fish (3,1) | t table2 (4,1)
#   2 S.OCR2t...     S serving_window1 (0,2) | O stove1 (2,2) pot1 | C chopping_board1 (3,2)
#                    R plate_return1 (4,2) | 2 dispenser2 rice (5,2) | t table3 (6,2)
#   3 .....C....     C chopping_board2 (5,3)
#   4 ...3....O.     3 dispenser3 nori (3,4) | O stove2 (8,4) pot2
#   5 .#4.......     # (1,5) | 4 dispenser4 cucumber (2,5)
#   6 T....K#...     T table4 (0,6) plate2 | K sink1 (5,6) | # (6,6)
#   7 ..........
# (2,3) is below stove1; (3,3) is below chopping_board1 and above the nori dispenser; (1,2) touches the
# window and stove1; (1,1) touches table1; (2,1) touches the fish dispenser and stove1.
SUSHI_D = {
    "agent1": [
        M(5, 1),   # 0 (7,0)->(6,0)->(5,0)->(5,1): 3                                   [0, 3]
        IN("dispenser2"),      # 1 rice1                                             [3]
        M(2, 1),   # 2 (5,1)->(5,0)->(4,0)->(3,0)->(2,0)->(2,1): 5                     [3, 8]
        IN("stove1"),          # 3 rice1 into pot1: boiling runs [8, 24]             [8]
        F,
    ],
    "agent2": [
        M(2, 1),   # 0 (2,3)->(1,3)->(1,2)->(1,1)->(2,1): 4 (stove1 blocks (2,2))       [0, 4]
        IN("dispenser1"),      # 1 fish1                                             [4]
        M(3, 3),   # 2 (2,1)->(1,1)->(1,2)->(1,3)->(2,3)->(3,3): 5                     [4, 9]
        IN("chopping_board1"),  # 3 put fish1 down                                    [9]
        P("chopping_board1"),  # 4 chop                                              [9, 13]
        F,
    ],
    "agent3": [
        M(4, 4),   # 0 (7,4)->(6,4)->(5,4)->(4,4): 3                                   [0, 3]
        IN("dispenser3"),      # 1 nori1                                             [3]
        M(1, 1),   # 2 (4,4)->(4,3)->(3,3)->(2,3)->(1,3)->(1,2)->(1,1): 6              [3, 9]
        IN("table1"),          # 3 nori1 onto plate1                                 [9]
        IN("table1"),          # 4 pick up plate1                                    [9]
        M(3, 3),   # 5 (1,1)->(1,2)->(1,3)->(2,3)->(3,3): 4                            [9, 13]
        IN("chopping_board1"),  # 6 fish1 (chopped at 13, completions first) onto plate1  [13]
        M(2, 3),   # 7 1                                                               [13, 14]
        W(10),     # 8 until the rice is cooked at 24                                 [14, 24]
        IN("stove1"),          # 9 pot1's rice onto plate1                           [24]
        M(1, 2),   # 10 (2,3)->(1,3)->(1,2): 2                                        [24, 26]
        IN("serving_window1"),  # 11 serve sushi_fish                                 [26]
        F,
    ],
}


def test_sushi_three_agents_pot():
    rep = grade("sushi_s42_o1_a3", SUSHI_D)
    assert rep.valid, rep.to_text()
    m = rep.metrics
    assert m["oct"] == 26
    # agent1 moves 8 and ends at 8 (idle 18); agent2 moves 9, chops 4, ends at 13 (idle 13);
    # agent3 moves 3 + 6 + 4 + 1 + 2 = 16, waits 10, ends at 26.
    assert m["time_budget"] == {"agent1": budget(8, 0, 0, 18), "agent2": budget(9, 4, 0, 13),
                                "agent3": budget(16, 0, 10, 0)}
    assert m["md"] == 11                                      # (8 + 9 + 16) / 3
    assert m["utilisation"] == (1 + 1 + Fraction(16, 26)) / 3  # agent3: (26 - 10) / 26
    # T_max: fish (chopped) 40 + 18; rice (cooked in a pot, raw -> cooked) d + d + POT = 52, + 18; nori
    # (raw) 18 + 18; serve 18 -> 58 + 70 + 36 + 18 = 182.  D_max: 54 + 54 + 36 + 18 = 162.
    assert (m["T_max"], m["D_max"]) == (182, 162)
    sim = simulate("sushi_s42_o1_a3", SUSHI_D)
    assert inside(sim, "pot1") == [] and on(sim, "stove1") == ["pot1"] and on(sim, "plate_return1") == ["plate1"]
    assert on(sim, "table4") == ["plate2"] and on(sim, "chopping_board1") == []


# ------------------------------------------------------------------------------------------------ salad
# salad_s42:
#     0123456789
#   0 .#T.......     # (1,0) | T table1 (2,0) plate1
#   1 .K3S....t.     K sink1 (1,1) | 3 dispenser1 cucumber (2,1) | S serving_window1 (3,1) | t table2 (8,1)
#   2 ...C......     C chopping_board1 (3,2)
#   3 .....R..#.     R plate_return1 (5,3) | # (8,3)
#   4 t.........     t table3 (0,4)
#   5 2.T.......     2 dispenser2 tomato (0,5) | T table4 (2,5) plate2
#   6 ..........
#   7 C.....1...     C chopping_board2 (0,7) | 1 dispenser3 lettuce (6,7)
# (1,5) touches the tomato dispenser and table4; (0,6) touches the tomato dispenser and chopping_board2.
SALAD_E = {
    "agent1": [
        IN("dispenser2"),      # 0 tomato1, straight from the start cell (1,5)      [0]
        M(0, 6),   # 1 (1,5)->(1,6)->(0,6): 2                                          [0, 2]
        IN("chopping_board2"),  # 2 put tomato1 down                                  [2]
        P("chopping_board2"),  # 3 chop                                              [2, 6]
        IN("chopping_board2"),  # 4 pick it up                                        [6]
        M(1, 5),   # 5 2                                                               [6, 8]
        IN("table4"),          # 6 tomato1 onto plate2                               [8]
        F,
    ],
    "agent2": [
        M(6, 6),   # 0 (6,4)->(6,5)->(6,6): 2                                          [0, 2]
        IN("dispenser3"),      # 1 lettuce1 (dispenser3 (6,7) below)                [2]
        M(4, 2),   # 2 (6,6)->(5,6)->(4,6)->(4,5)->(4,4)->(4,3)->(4,2): 6               [2, 8]
        IN("chopping_board1"),  # 3 put lettuce1 down (board (3,2) left of (4,2))    [8]
        P("chopping_board1"),  # 4 chop                                              [8, 12]
        IN("chopping_board1"),  # 5 pick it up                                        [12]
        M(2, 4),   # 6 (4,2)->(4,3)->(3,3)->(2,3)->(2,4): 4                            [12, 16]
        IN("table4"),          # 7 lettuce1 onto plate2                              [16]
        IN("table4"),          # 8 pick up plate2                                    [16]
        M(4, 1),   # 9 (2,4)->(3,4)->(4,4)->(4,3)->(4,2)->(4,1): 5                      [16, 21]
        IN("serving_window1"),  # 10 serve salad_advanced                             [21]
        F,
    ],
}


def test_salad_two_agents_two_boards():
    rep = grade("salad_s42_o1_a2", SALAD_E)
    assert rep.valid, rep.to_text()
    m = rep.metrics
    assert m["oct"] == 21
    assert m["time_budget"] == {"agent1": budget(4, 4, 0, 13), "agent2": budget(17, 4, 0, 0)}
    assert m["md"] == Fraction(21, 2) and m["utilisation"] == 1
    # T_max: two chopped ingredients 2 x (40 + 18) + 18 = 134; D_max 2 x 54 + 18 = 126
    assert (m["T_max"], m["D_max"], m["noct"]) == (134, 126, Fraction(21, 134))
    sim = simulate("salad_s42_o1_a2", SALAD_E)
    assert on(sim, "table4") == [] and on(sim, "plate_return1") == ["plate2"] and on(sim, "table1") == ["plate1"]


# ------------------------------------------------------------------------------------------------ pasta
# pasta_s42:
#     0123456789
#   0 ....T....T     T table1 (4,0) plate1 | T table2 (9,0) plate2
#   1 6.....O...     6 dispenser1 prawn (0,1) | O stove1 (6,1) pot1
#   2 .S....t...     S serving_window1 (1,2) | t table3 (6,2)
#   3 ..C5...P..     C chopping_board1 (2,3) | 5 dispenser2 fish (3,3) | P stove2 (7,3) pan1
#   4 O...R.2.KC     O stove3 (0,4) pot2 | R plate_return1 (4,4) | 2 dispenser3 tomato (6,4) | K sink1 (8,4)
#                    C chopping_board2 (9,4)
#   5 t.P.......     t table4 (0,5) | P stove4 (2,5) pan2
#   6 ...#1.....     # (3,6) | 1 dispenser4 pasta (4,6)
#   7 .#4......3     # (1,7) | 4 dispenser5 mushroom (2,7) | 3 dispenser6 meat (9,7)
PASTA_F = {
    "agent1": [
        M(4, 5),   # 0 (1,4)->(2,4)->(3,4)->(3,5)->(4,5): 4                            [0, 4]
        IN("dispenser4"),      # 1 pasta1 (dispenser4 (4,6) below (4,5))            [4]
        M(1, 4),   # 2 the same 4 cells back                                           [4, 8]
        IN("stove3"),          # 3 pasta1 into pot2 on stove3 (0,4): boils [8, 24]  [8]
        F,
    ],
    "agent2": [
        M(9, 6),   # 0 (4,2)->(5,2)->(5,3)->(5,4)->(5,5)->(6,5)->(7,5)->(8,5)->(9,5)->(9,6): 9  [0, 9]
        IN("dispenser6"),      # 1 meat1 (dispenser6 (9,7) below)                   [9]
        M(9, 5),   # 2 1                                                               [9, 10]
        IN("chopping_board2"),  # 3 put meat1 on chopping_board2 (9,4)               [10]
        P("chopping_board2"),  # 4 chop                                              [10, 14]
        IN("chopping_board2"),  # 5 pick it up                                        [14]
        M(7, 4),   # 6 (9,5)->(8,5)->(7,5)->(7,4): 3                                   [14, 17]
        IN("stove2"),          # 7 meat1 into pan1 on stove2 (7,3): fries [17, 41]  [17]
        M(4, 1),   # 8 (7,4)->(7,5)->(6,5)->(5,5)->(5,4)->(5,3)->(5,2)->(5,1)->(4,1): 8 [17, 25]
        IN("table1"),          # 9 pick up plate1                                    [25]
        M(1, 4),   # 10 (4,1)->(5,1)->(5,2)->(5,3)->(5,4)->(5,5)->(4,5)->(3,5)->(3,4)->(2,4)->(1,4): 10
                   #    (Manhattan 6; the plate return (4,4) and dispenser (3,3) force the detour) [25, 35]
        IN("stove3"),          # 11 cooked pasta1 (since 24) onto plate1             [35]
        M(7, 4),   # 12 (1,4)->(2,4)->(3,4)->(3,5)->(4,5)->(5,5)->(6,5)->(7,5)->(7,4): 8  [35, 43]
        IN("stove2"),          # 13 cooked meat1 (since 41) onto plate1              [43]
        M(2, 2),   # 14 (7,4)->(7,5)->(6,5)->(5,5)->(5,4)->(5,3)->(4,3)->(4,2)->(3,2)->(2,2): 9  [43, 52]
        IN("serving_window1"),  # 15 serve pasta_meat (window (1,2) left of (2,2))   [52]
        F,
    ],
}


def test_pasta_pot_and_pan_two_agents():
    rep = grade("pasta_s42_o1_a2", PASTA_F)
    assert rep.valid, rep.to_text()
    m = rep.metrics
    assert m["oct"] == 52
    # agent2 moves 9 + 1 + 3 + 8 + 10 + 8 + 9 = 48 and chops 4
    assert m["time_budget"] == {"agent1": budget(8, 0, 0, 44), "agent2": budget(48, 4, 0, 0)}
    assert m["md"] == 28 and m["utilisation"] == 1
    # T_max: pasta (pot) d + d + POT + d = 70; meat (pan) d + d + CUT + d + PAN + d = 100; serve 18 -> 188.
    # D_max: 54 + 72 + 18 = 144.
    assert (m["T_max"], m["D_max"]) == (188, 144)
    sim = simulate("pasta_s42_o1_a2", PASTA_F)
    assert inside(sim, "pot2") == [] and inside(sim, "pan1") == [] and on(sim, "plate_return1") == ["plate1"]
    assert sim.st.pos == {"agent1": (1, 4), "agent2": (2, 2)}
