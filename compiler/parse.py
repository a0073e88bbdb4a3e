"""Parser: chronoplan source text -> AST (``ast.Module``) or a syntax ``Diagnostic``.

Input: file name and text.  Output: ``(Module | None, [Diagnostic])``.  Uses the LALR grammar in
grammar/chrono.lark with positions propagated; the Transformer maps syntax to AST only.  Syntax errors are
turned into diagnostics with a human label such as "expected a step duration after the step text".
"""
from __future__ import annotations

import re
from contextvars import ContextVar
from fractions import Fraction
from functools import lru_cache

from lark import Lark, Token, Transformer_NonRecursive, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from chronoplan.compiler import ast as A
from chronoplan.compiler.diagnostics import Diagnostic, Severity, Span, source_lines
from chronoplan.compiler.numparse import MAX_DIGITS, NumberProblem, parse_decimal
from chronoplan.compiler.parse_cache import cache_file
from chronoplan.compiler.sources import MAX_SOURCE_BYTES
from chronoplan.grammar import GRAMMAR_PATH

_SOURCE: ContextVar[str] = ContextVar("chronoplan_source", default="")   # the text being parsed
_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")
_WORD = re.compile(r"[A-Za-z0-9_]*")


class _GluedKeyword(Exception):
    """A keyword token directly followed by a letter, digit or underscore (``constx = 1``)."""

    def __init__(self, token: Token) -> None:
        super().__init__(str(token))
        self.token = token


class _WholeWords:
    """Lark post-lexer: a keyword is a whole word.  The contextual lexer, where the grammar expects no name,
    matched a keyword's letters at the start of a longer word (``constx`` read as ``const x``, ``step1`` as
    ``step 1``); such a token raises ``_GluedKeyword``.  ``types`` (set by ``parser()``): the names of the
    grammar's alphabetic literals as Lark lexes them ("const" -> CONST, or __ANON_n when a named terminal
    already has the literal's name)."""

    always_accept: tuple = ()

    def __init__(self) -> None:
        self.types: frozenset = frozenset()

    def process(self, stream):
        text, types = _SOURCE.get(), self.types
        for token in stream:
            if token.type in types:
                end = token.end_pos
                if end is not None and end < len(text) and _WORD_CHAR.match(text, end):
                    raise _GluedKeyword(token)
            yield token


@lru_cache(maxsize=1)
def parser() -> Lark:
    """The LALR parser, its tables cached in a private per-user file (compiler/parse_cache.py), never in the
    shared temporary directory; keywords are whole words (``_WholeWords``)."""
    grammar = GRAMMAR_PATH.read_text()
    whole = _WholeWords()
    out = Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True, postlex=whole,
               cache=cache_file(grammar))
    whole.types = frozenset(t.name for t in out.terminals if t.pattern.type == "str" and t.pattern.value.isalpha())
    return out


def _num(tok) -> Fraction:
    return Fraction(str(tok))  # a NUMBER token: digits with an optional decimal part


def _unquote(tok) -> str:
    s = str(tok)
    if s.startswith('"""'):
        return s[3:-3]
    body = s[1:-1]
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(nxt, "\\" + nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _bin(op):
    """The transformer method of a binary operator node."""
    @v_args(meta=True)
    def f(self, meta, c):
        return A.BinOp(op, c[0], c[1], self.sp(meta))
    return f


def _opt(kind):
    """The transformer method of a step option."""
    @v_args(meta=True)
    def f(self, meta, c):
        return A.StepOpt(kind, tuple(c), self.sp(meta))
    return f


def _sc(kind, convert=None):
    """The transformer method of a scenario item (``convert``: its arguments from the children)."""
    @v_args(meta=True)
    def f(self, meta, c):
        args = tuple(c) if convert is None else convert(self, c)
        return A.ScenarioItem(kind, args, self.sp(meta))
    return f


class _ToAST(Transformer_NonRecursive):
    """lark tree -> AST; no lookups and no errors."""

    def __init__(self, file: str):
        super().__init__(visit_tokens=False)
        self.file = file

    # helpers --------------------------------------------------------------
    def sp(self, meta) -> Span | None:
        if getattr(meta, "empty", True):
            return None
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def tsp(self, tok) -> Span | None:
        if not isinstance(tok, Token) or tok.line is None:
            return None
        column = tok.column or 1
        return Span(self.file, tok.line, column, tok.end_line or tok.line, tok.end_column or column + 1)

    def id(self, tok) -> A.Ident | None:
        if tok is None:
            return None
        return A.Ident(str(tok), self.tsp(tok))

    def ids(self, toks) -> tuple:
        return tuple(self.id(t) for t in toks if t is not None)

    # top level -------------------------------------------------------------
    def start(self, children):
        return tuple(children)

    @v_args(meta=True)
    def import_decl(self, meta, c):
        return A.Import(_unquote(c[0]), self.sp(meta))

    @v_args(meta=True)
    def domain_decl(self, meta, c):
        return A.DomainDecl(self.id(c[0]), self.sp(meta))

    @v_args(meta=True)
    def const_decl(self, meta, c):
        return A.ConstDecl(tuple(c), self.sp(meta))

    @v_args(meta=True)
    def const_item(self, meta, c):
        return A.ConstItem(self.id(c[0]), c[1], self.sp(meta))

    # expressions -----------------------------------------------------------
    @v_args(meta=True)
    def number(self, meta, c):
        return A.Num(_num(c[0]), self.sp(meta))

    @v_args(meta=True)
    def quantity(self, meta, c):
        return A.Quantity(_num(c[0]), str(c[1]), self.sp(meta))

    @v_args(meta=True)
    def name(self, meta, c):
        return A.Name(self.id(c[0]), self.sp(meta))

    @v_args(meta=True)
    def name_quantity(self, meta, c):
        # ``C min``: a unitless constant read in a unit (C * 1 min)
        return A.BinOp("*", A.Name(self.id(c[0]), self.tsp(c[0])), A.Quantity(Fraction(1), str(c[1]), self.tsp(c[1])),
                       self.sp(meta))

    @v_args(meta=True)
    def attr_ref(self, meta, c):
        return A.AttrAccess(self.id(c[0]), self.id(c[1]), self.sp(meta))

    @v_args(meta=True)
    def call(self, meta, c):
        return A.Call(self.id(c[0]), tuple(x for x in c[1:] if x is not None), self.sp(meta))


    add, sub, mul, div = _bin("+"), _bin("-"), _bin("*"), _bin("/")

    @v_args(meta=True)
    def neg(self, meta, c):
        return A.Neg(c[0], self.sp(meta))

    # types, objects, state ----------------------------------------------------
    @v_args(meta=True)
    def type_decl(self, meta, c):
        return A.TypeDecl(tuple(c), self.sp(meta))

    @v_args(meta=True)
    def type_item(self, meta, c):
        return A.TypeItem(self.id(c[0]), self.id(c[1]), self.sp(meta))

    @v_args(meta=True)
    def object_decl(self, meta, c):
        return A.ObjectDecl(self.ids(c[:-1]), self.id(c[-1]), self.sp(meta))

    @v_args(meta=True)
    def attr_decl(self, meta, c):
        name, *rest = c
        params, kind_values, default = rest[:-2], rest[-2], rest[-1]
        kind, values = kind_values
        return A.AttrDecl(self.id(name), self.ids(params), kind, values, default, self.sp(meta))

    def enum_type(self, c):
        vals = self.ids(c)
        return (A.Ident("enum", vals[0].span), vals)

    def simple_type(self, c):
        return (self.id(c[0]), ())

    @v_args(meta=True)
    def relation_decl(self, meta, c):
        role, cap, per = c[-3:]
        return A.RelationDecl(self.id(c[0]), self.ids(c[1:-3]), self.sp(meta), self.id(role),
                              None if cap is None else int(cap), self.id(per))

    @v_args(meta=True)
    def resource_decl(self, meta, c):
        name, parent, cap, props = c
        return A.ResourceDecl(self.id(name), None if cap is None else int(cap), tuple(props or ()),
                              self.sp(meta), self.id(parent))

    def prop_block(self, c):
        return tuple(c)

    @v_args(meta=True)
    def prop_item(self, meta, c):
        return A.PropItem(self.id(c[0]), c[1], self.sp(meta))

    @v_args(meta=True)
    def pos_number(self, meta, c):
        num, unit = c
        return A.Literal("number", _num(num), None if unit is None else str(unit), self.sp(meta))

    @v_args(meta=True)
    def neg_number(self, meta, c):
        num, unit = c
        return A.Literal("number", -_num(num), None if unit is None else str(unit), self.sp(meta))

    @v_args(meta=True)
    def lit_name(self, meta, c):
        return A.Literal("name", str(c[0]), None, self.sp(meta))

    @v_args(meta=True)
    def lit_string(self, meta, c):
        return A.Literal("string", _unquote(c[0]), None, self.sp(meta))

    @v_args(meta=True)
    def lit_true(self, meta, c):
        return A.Literal("bool", True, None, self.sp(meta))

    @v_args(meta=True)
    def lit_false(self, meta, c):
        return A.Literal("bool", False, None, self.sp(meta))

    # actions -------------------------------------------------------------------
    @v_args(meta=True)
    def param(self, meta, c):
        return A.ParamDecl(self.id(c[0]), self.id(c[1]), self.sp(meta))

    @v_args(meta=True)
    def new_param(self, meta, c):
        return A.ParamDecl(self.id(c[0]), self.id(c[1]), self.sp(meta), True, self.id(c[2]))

    @v_args(meta=True)
    def action_decl(self, meta, c):
        name = c[0]
        params = tuple(x for x in c[1:] if isinstance(x, A.ParamDecl))
        items = tuple(x for x in c[1:] if isinstance(x, A.ActionItem))
        return A.ActionDecl(self.id(name), params, items, self.sp(meta))

    @v_args(meta=True)
    def a_duration(self, meta, c):
        return A.ActionItem("duration", (c[0],), self.sp(meta))

    @v_args(meta=True)
    def a_busy(self, meta, c):
        return A.ActionItem("busy", (self.ids(c[:-1]), c[-1]), self.sp(meta))

    @v_args(meta=True)
    def a_holds(self, meta, c):
        return A.ActionItem("holds", (self.ids(c),), self.sp(meta))

    @v_args(meta=True)
    def a_interruptible(self, meta, c):
        return A.ActionItem("interruptible", (), self.sp(meta))

    @v_args(meta=True)
    def a_condition(self, meta, c):
        return A.ActionItem("condition", (str(c[0]), c[1]), self.sp(meta))

    @v_args(meta=True)
    def a_effect(self, meta, c):
        return A.ActionItem("effect", (str(c[0]), tuple(c[1:])), self.sp(meta))

    @v_args(meta=True)
    def process_decl(self, meta, c):
        name = c[0]
        params = tuple(x for x in c[1:] if isinstance(x, A.ParamDecl))
        rest = [x for x in c[1:] if not isinstance(x, A.ParamDecl) and x is not None]
        scope = None
        if rest and isinstance(rest[0], tuple) and rest[0][:1] == ("scope",):
            scope = rest.pop(0)[1]
        cond, dur, *effects = rest
        return A.ProcessDecl(self.id(name), params, cond, dur, tuple(effects), self.sp(meta), scope)

    def process_scope(self, c):
        return ("scope", c[0])

    # formulas ------------------------------------------------------------------
    @v_args(meta=True)
    def f_or(self, meta, c):
        return A.FBool("or", tuple(c), self.sp(meta))

    @v_args(meta=True)
    def f_and(self, meta, c):
        return A.FBool("and", tuple(c), self.sp(meta))

    @v_args(meta=True)
    def f_not(self, meta, c):
        return A.FBool("not", tuple(c), self.sp(meta))

    @v_args(meta=True)
    def f_exists(self, meta, c):
        return A.FExists(self.id(c[0]), self.id(c[1]), c[2], self.sp(meta))

    @v_args(meta=True)
    def f_forall(self, meta, c):
        """``forall(v: T where F)`` is read as ``not exists(v: T where not F)`` (one IR quantifier)."""
        sp = self.sp(meta)
        inner = A.FExists(self.id(c[0]), self.id(c[1]), A.FBool("not", (c[2],), c[2].span), sp)
        return A.FBool("not", (inner,), sp)

    @v_args(meta=True)
    def f_implies(self, meta, c):
        """``F implies G`` is read as ``not F or G``."""
        return A.FBool("or", (A.FBool("not", (c[0],), c[0].span), c[1]), self.sp(meta))

    @v_args(meta=True)
    def count_expr(self, meta, c):
        return A.CountExpr(self.id(c[0]), self.id(c[1]), c[2], self.sp(meta))

    @v_args(meta=True)
    def e_forall(self, meta, c):
        return A.EForall(self.id(c[0]), self.id(c[1]), c[2], tuple(c[3:]), self.sp(meta))

    @v_args(meta=True)
    def f_true(self, meta, c):
        return A.FBool("true", (), self.sp(meta))

    @v_args(meta=True)
    def f_false(self, meta, c):
        return A.FBool("false", (), self.sp(meta))

    @v_args(meta=True)
    def f_atom(self, meta, c):
        return A.FAtom(self.id(c[0]), tuple(x for x in c[1:] if x is not None), self.sp(meta))

    @v_args(meta=True)
    def f_cmp(self, meta, c):
        return A.FCmp(str(c[1]), c[0], c[2], self.sp(meta))

    @v_args(meta=True)
    def t_name(self, meta, c):
        return A.TName(self.id(c[0]), self.sp(meta))

    @v_args(meta=True)
    def t_attr(self, meta, c):
        return A.TAttr(self.id(c[0]), self.id(c[1]), self.sp(meta))

    def t_number(self, c):
        return c[0]

    @v_args(meta=True)
    def t_string(self, meta, c):
        return A.Literal("string", _unquote(c[0]), None, self.sp(meta))

    @v_args(meta=True)
    def e_assign(self, meta, c):
        return A.EAssign(self.id(c[0]), self.id(c[1]), c[2], self.sp(meta))

    @v_args(meta=True)
    def e_add(self, meta, c):
        return A.EFact(True, self.id(c[0]), tuple(x for x in c[1:] if x is not None), self.sp(meta))

    @v_args(meta=True)
    def e_del(self, meta, c):
        return A.EFact(False, self.id(c[0]), tuple(x for x in c[1:] if x is not None), self.sp(meta))

    @v_args(meta=True)
    def e_delayed(self, meta, c):
        return A.EDelayed(c[0], tuple(c[1:]), self.sp(meta))

    # recipes and procedures ----------------------------------------------------
    @v_args(meta=True)
    def recipe_decl(self, meta, c):
        name, cat, container, *items = c
        return A.RecipeDecl(self.id(name), self.id(cat), self.id(container),
                            tuple(i for i in items if i is not None), self.sp(meta))

    @v_args(meta=True)
    def ingredient(self, meta, c):
        count, name, state = c
        return A.IngredientRef(1 if count is None else int(count), self.id(name), self.id(state), self.sp(meta))

    @v_args(meta=True)
    def procedure_decl(self, meta, c):
        name, title, *items = c
        return A.ProcedureDecl(self.id(name), None if title is None else _unquote(title), tuple(items),
                               self.sp(meta))

    @v_args(meta=True)
    def local_resource(self, meta, c):
        cap = c[-1]
        return A.LocalResource(self.ids(c[:-1]), None if cap is None else int(cap), self.sp(meta))

    @v_args(meta=True)
    def initial_states(self, meta, c):
        return A.InitialStates(tuple(c), self.sp(meta))

    def initial_item(self, c):
        return (self.id(c[0]), c[1])

    @v_args(meta=True)
    def private_names(self, meta, c):
        return A.PrivateNames(self.ids(c), self.sp(meta))

    @v_args(meta=True)
    def verb_decl(self, meta, c):
        usage, description, before, after = c
        return A.VerbDecl(_unquote(usage), _unquote(description), before, after, self.sp(meta), self.tsp(usage))

    def sw_name(self, c):
        return self.id(c[0])

    def sw_string(self, c):
        return A.Ident(_unquote(c[0]), self.tsp(c[0]))

    @v_args(meta=True)
    def step(self, meta, c):
        index, text, dur, *opts = c
        return A.StepDecl(int(index), _unquote(text), dur, tuple(opts), self.sp(meta), self.tsp(index))


    s_autonomous = _opt("autonomous")
    s_continuous = _opt("continuous")
    s_interruptible = _opt("interruptible")
    s_within = _opt("within")
    s_gap = _opt("gap")
    s_release = _opt("release")
    s_deadline = _opt("deadline")
    s_uses = _opt("uses")

    @v_args(meta=True)
    def s_after(self, meta, c):
        return A.StepOpt("after", tuple((int(t), self.tsp(t)) for t in c), self.sp(meta))

    @v_args(meta=True)
    def use(self, meta, c):
        needs = tuple(x[1] for x in c[1:] if x[0] == "needs")
        sets = tuple(x[1] for x in c[1:] if x[0] == "sets")
        return A.UseDecl(self.id(c[0]), needs, sets, self.sp(meta))

    def u_needs(self, c):
        return ("needs", (self.id(c[0]), c[1]))

    def u_sets(self, c):
        return ("sets", (self.id(c[0]), c[1]))

    # maps ----------------------------------------------------------------------
    @v_args(meta=True)
    def map_decl(self, meta, c):
        name, art, *legend = c
        return A.MapDecl(self.id(name), _unquote(art), self.tsp(art), tuple(x for x in legend if x is not None),
                         self.sp(meta))

    @v_args(meta=True)
    def legend(self, meta, c):
        sym, kind, arg, item, sname = c
        s = str(sym)
        if sym.type == "STRING":
            s = _unquote(sym)
        return A.LegendEntry(s, self.id(kind), self.id(arg), self.sp(meta), self.id(item), self.id(sname))

    # grid kitchens ----------------------------------------------------------------
    @v_args(meta=True)
    def container_decl(self, meta, c):
        name, cap, *accepts = c
        return A.ContainerDecl(self.id(name), None if cap is None else int(cap), tuple(accepts), self.sp(meta))

    @v_args(meta=True)
    def accept(self, meta, c):
        return A.AcceptItem(self.id(c[0]), self.id(c[1]), self.sp(meta))

    @v_args(meta=True)
    def surface_decl(self, meta, c):
        name = c[0]
        params = tuple(x for x in c[1:-1] if isinstance(x, A.ParamDecl))
        final, ops = c[-1]
        return A.SurfaceDecl(self.id(name), params, ops, final, self.sp(meta))

    def surface_ops(self, c):
        return (False, self.ids(c))

    def surface_final(self, c):
        return (True, ())

    # households ----------------------------------------------------------------
    def _int(self, tok) -> A.Num | None:
        return None if tok is None else A.Num(Fraction(int(tok)), self.tsp(tok))

    @v_args(meta=True)
    def household_decl(self, meta, c):
        return A.HouseholdDecl(self.id(c[0]), tuple(c[1:]), self.sp(meta))

    @v_args(meta=True)
    def h_rooms(self, meta, c):
        return A.HRooms(self.ids(c[1:]), self.sp(meta))

    @v_args(meta=True)
    def h_door(self, meta, c):
        _kw, a, b, length = c
        return A.HDoor(self.id(a), self.id(b), length, self.sp(meta))

    @v_args(meta=True)
    def h_place(self, meta, c):
        kind, name, cap, room, state, length = c
        return A.HPlace(kind, self.id(name), self._int(cap), self.id(room), state, length, self.sp(meta))

    def place_kind(self, c):
        return self.id(c[0])

    @v_args(meta=True)
    def ps_closed(self, meta, c):
        return A.Ident("closed", self.sp(meta))

    @v_args(meta=True)
    def ps_open(self, meta, c):
        return A.Ident("open", self.sp(meta))

    @v_args(meta=True)
    def metres(self, meta, c):
        return A.Length(_num(c[0]), self.sp(meta))

    @v_args(meta=True)
    def h_thing(self, meta, c):
        hidden, options = c[-1]
        return A.HThing(self.ids(c[1:-2]), self.id(c[-2]), options, hidden, self.sp(meta))

    def p_fixed(self, c):
        return (False, self.ids(c))

    def p_hidden(self, c):
        return (True, self.ids(c))

    @v_args(meta=True)
    def h_hands(self, meta, c):
        return A.HSetting("hands", self._int(c[1]), self.sp(meta))

    @v_args(meta=True)
    def h_speed(self, meta, c):
        return A.HSetting("speed", c[1], self.sp(meta))

    @v_args(meta=True)
    def h_observe(self, meta, c):
        return A.HObserve(tuple(c[1:]), self.sp(meta))

    @v_args(meta=True)
    def see_rule(self, meta, c):
        _kw, var, typ, formula = c
        return A.SeeRule(self.id(var), self.id(typ), formula, self.sp(meta))

    # tools ---------------------------------------------------------------------
    @v_args(meta=True)
    def app_decl(self, meta, c):
        name, doc, *items = c
        return A.AppDecl(self.id(name), None if doc is None else _unquote(doc),
                         tuple(x for x in items if isinstance(x, A.ToolDecl)), self.sp(meta),
                         tuple(x for x in items if isinstance(x, A.ScreenDecl)))

    @v_args(meta=True)
    def screen_decl(self, meta, c):
        name, doc, *elements = c
        return A.ScreenDecl(self.id(name), None if doc is None else _unquote(doc), tuple(elements), self.sp(meta))

    @v_args(meta=True)
    def element_decl(self, meta, c):
        name, label, *ops = c
        return A.ElementDecl(self.id(name), None if label is None else _unquote(label),
                             tuple(self.id(o) for o in ops), self.sp(meta))

    @v_args(meta=True)
    def tool_decl(self, meta, c):
        name = c[0]
        params = tuple(x for x in c[1:] if isinstance(x, A.ToolParamDecl))
        rets = tuple(x for x in c[1:] if isinstance(x, tuple))
        doc = c[-1] if isinstance(c[-1], Token) and c[-1].type == "STRING" else None
        return A.ToolDecl(self.id(name), params, rets, None if doc is None else _unquote(doc), self.sp(meta))

    @v_args(meta=True)
    def tool_param(self, meta, c):
        name, opt, ptype, default = c
        return A.ToolParamDecl(self.id(name), opt is not None, ptype, default, self.sp(meta))

    def ret(self, c):
        return (self.id(c[0]), c[1])

    @v_args(meta=True)
    def pt_simple(self, meta, c):
        return A.TypeExpr("simple", self.id(c[0]), span=self.sp(meta))

    @v_args(meta=True)
    def pt_enum(self, meta, c):
        vals = tuple(_unquote(v) if v.type == "STRING" else str(v) for v in c)
        return A.TypeExpr("enum", values=vals, span=self.sp(meta))

    @v_args(meta=True)
    def pt_list(self, meta, c):
        return A.TypeExpr("list", item=c[0], span=self.sp(meta))

    @v_args(meta=True)
    def v_string(self, meta, c):
        return A.ValueExpr("string", _unquote(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_number(self, meta, c):
        return A.ValueExpr("number", _num(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_neg_number(self, meta, c):
        return A.ValueExpr("number", -_num(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_true(self, meta, c):
        return A.ValueExpr("bool", True, self.sp(meta))

    @v_args(meta=True)
    def v_false(self, meta, c):
        return A.ValueExpr("bool", False, self.sp(meta))

    @v_args(meta=True)
    def v_date(self, meta, c):
        return A.ValueExpr("date", str(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_time(self, meta, c):
        return A.ValueExpr("time", str(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_name(self, meta, c):
        return A.ValueExpr("name", str(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_ref(self, meta, c):
        return A.ValueExpr("ref", (int(c[0]), str(c[1])), self.sp(meta))

    @v_args(meta=True)
    def v_list(self, meta, c):
        return A.ValueExpr("list", tuple(x for x in c if x is not None), self.sp(meta))

    # scenarios -------------------------------------------------------------------
    @v_args(meta=True)
    def scenario_decl(self, meta, c):
        return A.ScenarioDecl(self.id(c[0]), tuple(c[1:]), self.sp(meta))


    def _names(self, c):
        return self.ids(c)

    def _strings(self, c):
        return tuple(_unquote(x) for x in c)

    sc_map = _sc("map", _names)
    sc_orders = _sc("orders", _names)
    sc_procedures = _sc("procedures", _names)
    sc_share = _sc("share", _names)
    sc_unit = _sc("unit", _names)
    sc_apps = _sc("apps", _names)
    sc_tools = _sc("tools", _names)
    sc_structure = _sc("structure", _names)
    sc_occupancy = _sc("occupancy", _names)
    sc_query = _sc("query", _strings)
    sc_agents = _sc("agents")
    sc_const = _sc("const")
    sc_limit = _sc("limit")
    sc_profile = _sc("profile", lambda self, c: tuple(x for x in c if x is not None))
    sc_reference = _sc("reference")
    sc_household = _sc("household", _names)
    sc_syntax = _sc("syntax", _names)
    sc_goal = _sc("goal")
    sc_horizon = _sc("horizon", lambda self, c: (self._int(c[0]),))
    sc_seed = _sc("seed", lambda self, c: (self._int(c[0]),))
    sc_messages = _sc("messages", lambda self, c: ((self._int(c[0]), self._int(c[1])),))
    sc_object = _sc("object", lambda self, c: (self.ids(c[:-1]), self.id(c[-1])))
    sc_init = _sc("init", lambda self, c: tuple(x for x in c if x is not None))
    sc_world_goal = _sc("world_goal")

    def init_fact(self, c):
        return c[0]

    @v_args(meta=True)
    def agent(self, meta, c):
        name, x, y = c
        pos = None if x is None else (int(x), int(y))
        return A.AgentItem(self.id(name), pos, self.sp(meta))

    @v_args(meta=True)
    def agent_room(self, meta, c):
        return A.AgentItem(self.id(c[0]), None, self.sp(meta), self.id(c[1]))

    @v_args(meta=True)
    def goal_count(self, meta, c):
        return A.GoalCountItem(self._int(c[0]), self.id(c[1]), self.ids(c[2:]), self.sp(meta))

    def profile_item(self, c):
        return (self.id(c[0]), c[1])

    @v_args(meta=True)
    def ref_call(self, meta, c):
        rid, tool, *rest = c
        args = tuple(x for x in rest if isinstance(x, tuple))
        after = tuple(int(x) for x in rest if isinstance(x, Token))
        return A.RefCallDecl(int(rid), self.id(tool), args, after, self.sp(meta))

    def ref_arg(self, c):
        return (self.id(c[0]), c[1])


# ------------------------------------------------------------------ syntax errors
_TERMINAL_LABELS = {
    "NAME": "a name", "NUMBER": "a number", "INT": "an integer", "STRING": "a string", "UNIT": "a time unit",
    "DATE": "a date (YYYY-MM-DD)", "CLOCK": "a time (HH:MM)", "WHEN": "start, all or end", "CMP": "a comparison",
    "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'",
    "COLON": "':'", "COMMA": "','", "EQUAL": "'='", "DOT": "'.'", "STAR": "'*'", "PLUS": "'+'", "MINUS": "'-'",
    "SLASH": "'/'", "AT": "'@'", "LESSTHAN": "'<'", "VBAR": "'|'", "DOLLAR": "'$'", "QMARK": "'?'",
    "OPTIONAL": "'?'", "$END": "end of input", "METRES": "a length unit (m)",
    **{f"H_{k.upper()}": f"'{k}'" for k in ("room", "door", "container", "surface", "basket", "thing", "hands",
                                           "speed", "observe", "see")},
}

# (keyword that opens the construct, set of expected terminals that identify the gap) -> label
_CONTEXT_LABELS = [
    ("step", {"NUMBER"}, "expected a step duration after the step text"),
    ("step", {"STRING"}, "expected the step text (a quoted string) after the step number"),
    ("step", {"INT"}, "expected a step number"),
    ("after", {"INT"}, "expected a step number after 'after'"),
    ("when", {"COLON"}, "expected ':' after the condition time (when start: ...)"),
    ("at", {"COLON"}, "expected ':' after the effect time (at end: ...)"),
    ("const", {"EQUAL"}, "expected '=' after the constant name"),
    ("recipe", {"EQUAL"}, "expected '=' after the recipe name"),
    ("recipe", {"LSQB"}, "expected '[' after the recipe container"),
    ("param", {"COLON"}, "expected ':' and a type after the parameter name"),
]


def _label(name: str) -> str:
    if name in _TERMINAL_LABELS:
        return _TERMINAL_LABELS[name]
    if name.startswith("__ANON") or name.isupper():
        try:
            pattern = parser().get_terminal(name).pattern
            return f"'{pattern.value}'" if pattern.type == "str" else name.lower()
        except KeyError:
            return name.lower()
    return name


def _token_desc(tok) -> str:
    if tok is None or tok.type == "$END":
        return "end of input"
    text = str(tok)
    if len(text) > 30:
        text = text[:27] + "..."
    return f"'{text}'" if tok.type not in ("STRING",) else f"string {text}"


def _context_keyword(err: UnexpectedToken) -> str | None:
    ip = getattr(err, "interactive_parser", None)
    if ip is None:
        return None
    for v in reversed(ip.parser_state.value_stack):
        if isinstance(v, Token) and v.type.startswith("__ANON") is False and str(v) in (
                "step", "after", "when", "at", "const", "recipe"):
            return str(v)
        if isinstance(v, Token) and str(v) in ("step", "after", "when", "at", "const", "recipe"):
            return str(v)
    stack = ip.parser_state.value_stack
    if stack and isinstance(stack[-1], Token) and stack[-1].type == "NAME" and len(stack) >= 2 and \
            isinstance(stack[-2], Token) and str(stack[-2]) in ("(", ","):
        return "param"
    return None


def _expected_message(err: UnexpectedToken) -> str:
    expected = set(err.expected) - {"COMMENT"}
    kw = _context_keyword(err)
    for key, needed, label in _CONTEXT_LABELS:
        if kw == key and needed <= expected:
            return label
    labels = sorted({_label(e) for e in expected})
    if len(labels) > 8:
        labels = labels[:8] + ["..."]
    return "expected " + " or ".join(labels) if len(labels) <= 2 else "expected one of " + ", ".join(labels)


def keywords() -> frozenset:
    """Every alphabetic literal of the grammar (reserved where the grammar expects it)."""
    lark = parser()
    whole = lark.options.postlex
    assert isinstance(whole, _WholeWords), "parser() builds with _WholeWords"
    return frozenset(t.pattern.value for t in lark.terminals if t.name in whole.types)


def _misused_keyword(err: UnexpectedToken):
    """The keyword token lexed as a NAME just before the error (``step 1 "Bake." after 0``), if any."""
    ip = getattr(err, "interactive_parser", None)
    if ip is None:
        return None
    stack = [v for v in ip.parser_state.value_stack if isinstance(v, Token)]
    if stack and stack[-1].type == "NAME" and str(stack[-1]) in keywords():
        before = stack[-2] if len(stack) >= 2 else None
        return stack[-1], before
    return None


def misused_diag(file, err, misused) -> Diagnostic:
    tok, before = misused
    span = Span(file, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + len(tok))
    stack = [str(v) for v in err.interactive_parser.parser_state.value_stack if isinstance(v, Token)]
    if before is not None and before.type == "STRING" and "step" in stack:
        msg = f"expected a step duration after the step text, found '{tok}'"
    else:
        msg = f"unexpected keyword '{tok}' (keywords cannot be used as names here)"
    return Diagnostic("C001", Severity.ERROR, msg, span)


def _syntax_diag(file: str, text: str, err: UnexpectedInput) -> Diagnostic:
    if isinstance(err, UnexpectedToken) and err.token.type == "$END" or isinstance(err, UnexpectedEOF):
        lines = list(source_lines(text))
        if len(lines) > 1 and lines[-1] == "":     # the end of input is on the last line, not after its "\n"
            lines.pop()
        span = Span(file, len(lines), len(lines[-1]) + 1)
        msg = "unexpected end of input"
        if isinstance(err, UnexpectedToken):
            msg += ": " + _expected_message(err)
        return Diagnostic("C003", Severity.ERROR, msg, span)
    if isinstance(err, UnexpectedToken):
        misused = _misused_keyword(err)
        if misused is not None:
            return misused_diag(file, err, misused)
        tok = err.token
        line, column = tok.line or 1, tok.column or 1
        span = Span(file, line, column, tok.end_line or line, tok.end_column or column + len(str(tok)))
        return Diagnostic("C001", Severity.ERROR, f"unexpected {_token_desc(tok)}: {_expected_message(err)}", span)
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream
        ch = text[pos] if pos is not None and 0 <= pos < len(text) else "?"
        hint = ""
        if ch == '"':
            hint = " (unterminated string?)"
        return Diagnostic("C002", Severity.ERROR, f"unexpected character {ch!r}{hint}",
                          Span(file, err.line, err.column, err.line, err.column + 1))
    return Diagnostic("C001", Severity.ERROR, "syntax error", Span(file, getattr(err, "line", 1) or 1,
                                                                  getattr(err, "column", 1) or 1))


def _glued_diag(file: str, text: str, tok: Token) -> Diagnostic:
    """C001 for a keyword glued to the word after it, spanning the whole word as written."""
    m = _WORD.match(text, tok.end_pos or 0)
    word = str(tok) + (m.group(0) if m else "")
    line, column = tok.line or 1, tok.column or 1
    shown = word if len(word) <= 40 else word[:37] + "..."
    return Diagnostic("C001", Severity.ERROR, f"unexpected name '{shown}': a name cannot stand here, and the keyword "
                      f"'{tok}' must be a whole word (write '{tok} {word[len(str(tok)):][:20]}' if that is meant)",
                      Span(file, line, column, line, column + len(word)))


def _number_diags(file: str, tree) -> list:
    r"""C111 for every number literal beyond MAX_DIGITS digits (or with non-ASCII digits, which the grammar's
    ``\d`` lets through): converting them would be slow or raise (Python refuses >4300-digit integers)."""
    out = []
    toks = (t for sub in tree.iter_subtrees() for t in sub.children        # iterative: trees may be deep
            if isinstance(t, Token) and t.type in ("NUMBER", "INT"))
    for tok in toks:
        problem = parse_decimal(str(tok), limit=10 ** MAX_DIGITS)
        if isinstance(problem, NumberProblem):
            what = (f"has more than {MAX_DIGITS} digits (the limit)" if problem in (NumberProblem.TOO_LONG,
                    NumberProblem.OUT_OF_RANGE) else problem.value)
            text = str(tok) if len(tok) <= 20 else str(tok)[:17] + "..."
            line, column = tok.line or 1, tok.column or 1
            out.append(Diagnostic("C111", Severity.ERROR, f"number {text} {what}",
                                  Span(file, line, column, tok.end_line or line, tok.end_column or column + len(tok))))
    return out


def parse(file: str, text: str):
    """Parse ``text`` (from ``file``) into an AST Module; return (module | None, diagnostics)."""
    if len(text) > MAX_SOURCE_BYTES:
        return None, [Diagnostic("C004", Severity.ERROR, f"file too large ({len(text)} bytes)", Span(file, 1, 1))]
    reset = _SOURCE.set(text)
    try:
        tree = parser().parse(text)
    except UnexpectedInput as err:
        return None, [_syntax_diag(file, text, err)]
    except _GluedKeyword as err:
        return None, [_glued_diag(file, text, err.token)]
    except RecursionError:
        return None, [Diagnostic("C001", Severity.ERROR, "expression nested too deeply", Span(file, 1, 1))]
    finally:
        _SOURCE.reset(reset)
    bad = _number_diags(file, tree)
    if bad:
        return None, bad
    try:
        decls = _ToAST(file).transform(tree)
    except (RecursionError, VisitError) as exc:
        if isinstance(exc, VisitError) and not isinstance(exc.orig_exc, RecursionError):
            raise
        return None, [Diagnostic("C001", Severity.ERROR, "expression nested too deeply", Span(file, 1, 1))]
    return A.Module(file, tuple(decls)), []
