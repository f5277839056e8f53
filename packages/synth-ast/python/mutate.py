"""Procedural bugs for debug-gym synth: small AST mutations of Python functions, as line-precise edits.

Reads {"repo": DIR, "files": [...], "operators": [...]} on stdin and writes one JSON object per valid
candidate on stdout: {operator, file, line, endLine, replacement, function, description}. A candidate
is valid when the edited top-level statement parses and compiles to exactly the intended AST (so the
edit changed what it meant to change and nothing else) and that AST differs from the original.
Rejected candidates are counted per operator and reason in a last line {"rejected": {...}}.
Standard library only; never imports or runs the repository's code.
"""
import ast
import json
import sys

FLIP = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
        ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
LOOSEN = {ast.Lt: ast.LtE, ast.Gt: ast.GtE, ast.LtE: ast.Lt, ast.GtE: ast.Gt}
WRONG_OP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.Div: ast.FloorDiv, ast.FloorDiv: ast.Div,
            ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift,
            ast.RShift: ast.LShift, ast.Pow: ast.Mult, ast.BitXor: ast.BitOr}
COPY_CALLS = {'list', 'dict', 'set', 'copy', 'deepcopy'}
OPERATORS = ['off-by-one', 'flip-comparison', 'loosen-comparison', 'swap-arguments', 'wrong-operator',
             'drop-statement', 'duplicate-statement', 'early-return', 'missing-return', 'wrong-default',
             'swallow-exception', 'mutate-constant', 'replace-variable', 'break-loop-condition', 'copy-to-inplace']
SYMBOL = {ast.Lt: '<', ast.LtE: '<=', ast.Gt: '>', ast.GtE: '>=', ast.Eq: '==', ast.NotEq: '!=', ast.In: 'in',
          ast.NotIn: 'not in', ast.Is: 'is', ast.IsNot: 'is not', ast.Add: '+', ast.Sub: '-', ast.Mult: '*',
          ast.Div: '/', ast.FloorDiv: '//', ast.Mod: '%', ast.BitAnd: '&', ast.BitOr: '|', ast.LShift: '<<',
          ast.RShift: '>>', ast.Pow: '**', ast.BitXor: '^', ast.And: 'and', ast.Or: 'or'}


def short(node, limit=60):
    text = ast.unparse(node)
    return text if len(text) <= limit else text[:limit - 3] + '...'


class Mutation:
    """One intended change: how to make it in the tree (apply/revert) and as text (an edit of lines)."""

    def __init__(self, operator, description, apply, revert, edit):
        self.operator, self.description, self.apply, self.revert, self.edit = operator, description, apply, revert, edit


class FileMutator:
    def __init__(self, path, text, operators):
        self.path, self.text, self.operators = path, text, set(operators)
        self.lines = text.splitlines(keepends=True)
        self.tree = ast.parse(text)
        self.parents = {}
        for parent in ast.walk(self.tree):
            for field, value in ast.iter_fields(parent):
                if isinstance(value, list):
                    for index, child in enumerate(value):
                        if isinstance(child, ast.AST):
                            self.parents[id(child)] = (parent, field, index)
                elif isinstance(value, ast.AST):
                    self.parents[id(value)] = (parent, field, None)
        self.rejected = {}

    # ----------------------------------------------------------------- text edits
    def segment_edit(self, node, new_text):
        first = self.lines[node.lineno - 1].encode()
        last = self.lines[node.end_lineno - 1].encode()
        prefix = first[:node.col_offset].decode()
        suffix = last[node.end_col_offset:].decode()
        return node.lineno, node.end_lineno, prefix + new_text + suffix

    def owns_lines(self, stmt):
        first = self.lines[stmt.lineno - 1].encode()
        last = self.lines[stmt.end_lineno - 1].encode()
        rest = last[stmt.end_col_offset:].decode().strip()
        return first[:stmt.col_offset].decode().strip() == '' and (rest == '' or rest.startswith('#'))

    def indent_of(self, stmt):
        return self.lines[stmt.lineno - 1].encode()[:stmt.col_offset].decode()

    def stmt_text(self, stmt):
        return ''.join(self.lines[stmt.lineno - 1:stmt.end_lineno])

    # ----------------------------------------------------------------- tree edits
    def replace_node(self, node, new_node):
        parent, field, index = self.parents[id(node)]
        ast.copy_location(new_node, node)

        def apply():
            if index is None:
                setattr(parent, field, new_node)
            else:
                getattr(parent, field)[index] = new_node

        def revert():
            if index is None:
                setattr(parent, field, node)
            else:
                getattr(parent, field)[index] = node
        return apply, revert

    def expr_mutation(self, operator, node, new_node, description):
        apply, revert = self.replace_node(node, new_node)
        text = ast.unparse(new_node)
        return Mutation(operator, description, apply, revert, [self.segment_edit(node, text), self.segment_edit(node, '(' + text + ')')])

    def body_mutation(self, operator, stmt, new_body_items, new_text, description):
        """Replace `stmt` in its block by `new_body_items` (a list of statements) and its lines by `new_text`."""
        parent, field, index = self.parents[id(stmt)]
        block = getattr(parent, field)
        saved = list(block)

        def apply():
            block[index:index + 1] = new_body_items

        def revert():
            block[:] = saved
        return Mutation(operator, description, apply, revert, [(stmt.lineno, stmt.end_lineno, new_text)])

    # ----------------------------------------------------------------- checking
    def top_level(self, node):
        current = node
        while id(current) in self.parents:
            parent = self.parents[id(current)][0]
            if parent is self.tree:
                return current
            current = parent
        return None

    def check(self, mutation, anchor):
        top = self.top_level(anchor)
        start = min([top.lineno] + [decorator.lineno for decorator in getattr(top, 'decorator_list', [])])
        before = ast.dump(top)
        mutation.apply()
        try:
            expected = ast.dump(top)
        finally:
            mutation.revert()
        if expected == before:
            return None, 'no-change'
        reason = 'not-the-intended-ast'
        for first, last, replacement in mutation.edit:
            if first < start or last > top.end_lineno:
                return None, 'outside-statement'
            snippet = ''.join(self.lines[start - 1:first - 1]) + replacement + ''.join(self.lines[last:top.end_lineno])
            try:
                parsed = ast.parse(snippet)
                compile(parsed, self.path, 'exec')
            except (SyntaxError, ValueError):
                reason = 'invalid-syntax'
                continue
            if len(parsed.body) == 1 and ast.dump(parsed.body[0]) == expected:
                return (first, last, replacement), None
        return None, reason

    # ----------------------------------------------------------------- walking
    def functions(self):
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield node

    def own_nodes(self, function):
        """Nodes of `function` outside nested function and class definitions."""
        stack = list(function.body)
        while stack:
            node = stack.pop(0)
            yield node
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                    stack.append(child)

    def candidates(self):
        for function in self.functions():
            info = {'name': function.name,
                    'line': min([function.lineno] + [d.lineno for d in function.decorator_list]),
                    'endLine': function.end_lineno}
            docstring = function.body[0] if function.body and isinstance(function.body[0], ast.Expr) and isinstance(function.body[0].value, ast.Constant) and isinstance(function.body[0].value.value, str) else None
            for mutation, anchor in self.mutations(function, docstring):
                if mutation.operator not in self.operators:
                    continue
                edit, reason = self.check(mutation, anchor)
                if edit is None:
                    key = mutation.operator + ':' + reason
                    self.rejected[key] = self.rejected.get(key, 0) + 1
                    continue
                first, last, replacement = edit
                yield {'operator': mutation.operator, 'file': self.path, 'line': first, 'endLine': last,
                       'replacement': replacement, 'function': info, 'description': mutation.description}

    def mutations(self, function, docstring):
        nodes = list(self.own_nodes(function))
        yield from self.default_mutations(function)
        for node in nodes:
            yield from self.node_mutations(function, node, docstring)
        yield from self.return_mutations(function)
        yield from self.variable_mutations(function, nodes)

    # ----------------------------------------------------------------- operators
    def plus_minus(self, node, delta):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return ast.Constant(node.value + delta)
        return ast.BinOp(node, ast.Add() if delta > 0 else ast.Sub(), ast.Constant(1))

    def node_mutations(self, function, node, docstring):
        mut = self.expr_mutation
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == 'range':
            for arg in node.args:
                for delta in (1, -1):
                    yield mut('off-by-one', arg, self.plus_minus(arg, delta), f'range argument {short(arg)} -> {short(self.plus_minus(arg, delta))}'), node
        if isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper):
                if bound is not None:
                    for delta in (1, -1):
                        yield mut('off-by-one', bound, self.plus_minus(bound, delta), f'slice bound {short(bound)} -> {short(self.plus_minus(bound, delta))}'), node
        if isinstance(node, ast.Subscript) and isinstance(node.slice, (ast.Constant, ast.Name, ast.BinOp, ast.UnaryOp)):
            index = node.slice
            if not (isinstance(index, ast.Constant) and type(index.value) is not int):
                for delta in (1, -1):
                    yield mut('off-by-one', index, self.plus_minus(index, delta), f'index {short(index)} -> {short(self.plus_minus(index, delta))} in {short(node)}'), node
        if isinstance(node, ast.Compare):
            for position, op in enumerate(node.ops):
                for operator, table in (('flip-comparison', FLIP), ('loosen-comparison', LOOSEN)):
                    if type(op) in table:
                        ops = list(node.ops)
                        ops[position] = table[type(op)]()
                        new = ast.Compare(node.left, ops, node.comparators)
                        yield mut(operator, node, new, f'comparison {short(node)} -> {short(new)}'), node
        if isinstance(node, ast.Call) and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args):
            for i in range(len(node.args) - 1):
                args = list(node.args)
                args[i], args[i + 1] = args[i + 1], args[i]
                new = ast.Call(node.func, args, node.keywords)
                yield mut('swap-arguments', node, new, f'arguments {i + 1} and {i + 2} of {short(node.func)}() swapped'), node
        if isinstance(node, ast.BinOp) and type(node.op) in WRONG_OP and not any(isinstance(side, (ast.JoinedStr,)) or (isinstance(side, ast.Constant) and isinstance(side.value, str)) for side in (node.left, node.right)):
            new = ast.BinOp(node.left, WRONG_OP[type(node.op)](), node.right)
            yield mut('wrong-operator', node, new, f'operator {SYMBOL[type(node.op)]} -> {SYMBOL[type(new.op)]} in {short(node)}'), node
        if isinstance(node, ast.BoolOp):
            new = ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values)
            yield mut('wrong-operator', node, new, f'{SYMBOL[type(node.op)]} -> {SYMBOL[type(new.op)]} in {short(node)}'), node
        if isinstance(node, ast.AugAssign) and type(node.op) in WRONG_OP and self.owns_lines(node):
            new = ast.AugAssign(node.target, WRONG_OP[type(node.op)](), node.value)
            text = self.indent_of(node) + ast.unparse(new) + '\n'
            yield self.body_mutation('wrong-operator', node, [ast.copy_location(new, node)], text, f'{short(node)} -> {short(new)}'), node
        if isinstance(node, ast.stmt) and node is not docstring and self.owns_lines(node) and id(node) in self.parents:
            yield from self.statement_mutations(node)
        if isinstance(node, ast.Raise) and node.exc is not None and self.owns_lines(node):
            parent, field, index = self.parents[id(node)]
            text = self.indent_of(node) + 'pass\n'
            yield self.body_mutation('swallow-exception', node, [ast.copy_location(ast.Pass(), node)], text, f'raise {short(node.exc)} replaced by pass'), node
        if isinstance(node, ast.Constant) and node is not (docstring.value if docstring else None):
            yield from self.constant_mutations(node)
        if isinstance(node, ast.While) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 and type(node.test.ops[0]) in LOOSEN:
            new = ast.Compare(node.test.left, [LOOSEN[type(node.test.ops[0])]()], node.test.comparators)
            yield mut('break-loop-condition', node.test, new, f'while {short(node.test)} -> while {short(new)}'), node
        if isinstance(node, (ast.For, ast.While)) and node.body and self.owns_lines(node.body[-1]) and not isinstance(node.body[-1], (ast.Break, ast.Continue, ast.Return, ast.Raise)):
            last = node.body[-1]
            text = self.stmt_text(last) + self.indent_of(last) + 'break\n'
            yield self.body_mutation('break-loop-condition', last, [last, ast.Break()], text, f'loop at line {node.lineno} stops after its first iteration'), node
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Name):
            new = ast.Subscript(node.iter, ast.Slice(ast.Constant(1), None, None), ast.Load())
            yield mut('break-loop-condition', node.iter, new, f'for loop over {short(node.iter)} skips its first item'), node
        if isinstance(node, ast.Call):
            target = None
            if isinstance(node.func, ast.Attribute) and node.func.attr == 'copy' and not node.args and not node.keywords:
                target = node.func.value
            elif len(node.args) == 1 and not node.keywords and isinstance(node.args[0], (ast.Name, ast.Attribute)):
                name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None
                if name in COPY_CALLS:
                    target = node.args[0]
            if target is not None:
                yield mut('copy-to-inplace', node, target, f'{short(node)} -> {short(target)} (shared instead of copied)'), node
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.lower is None and node.slice.upper is None and node.slice.step is None and isinstance(node.ctx, ast.Load):
            yield mut('copy-to-inplace', node, node.value, f'{short(node)} -> {short(node.value)} (shared instead of copied)'), node

    def statement_mutations(self, stmt):
        parent, field, index = self.parents[id(stmt)]
        if not isinstance(getattr(parent, field, None), list):
            return
        droppable = isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)) and not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        if droppable:
            block = getattr(parent, field)
            if len(block) == 1:
                yield self.body_mutation('drop-statement', stmt, [ast.copy_location(ast.Pass(), stmt)], self.indent_of(stmt) + 'pass\n', f'statement {short(stmt)} dropped'), stmt
            else:
                yield self.body_mutation('drop-statement', stmt, [], '', f'statement {short(stmt)} dropped'), stmt
        if isinstance(stmt, ast.AugAssign) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            text = self.stmt_text(stmt)
            yield self.body_mutation('duplicate-statement', stmt, [stmt, stmt], text + text, f'statement {short(stmt)} runs twice'), stmt

    def constant_mutations(self, node):
        parent = self.parents.get(id(node), (None,))[0]
        if isinstance(parent, (ast.JoinedStr, ast.FormattedValue)) or isinstance(parent, ast.Slice) or (isinstance(parent, ast.Subscript) and parent.slice is node):
            return
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == 'range':
            return
        value = node.value
        if isinstance(value, bool):
            new = ast.Constant(not value)
        elif isinstance(value, int):
            new = ast.Constant(value + 1)
        elif isinstance(value, float):
            new = ast.Constant(value * 2 if value else 1.0)
        elif isinstance(value, str) and 0 < len(value) <= 40 and '\n' not in value:
            new = ast.Constant(value[:-1] if len(value) > 1 else value + value)
        else:
            return
        yield self.expr_mutation('mutate-constant', node, new, f'constant {short(node)} -> {short(new)}'), node

    def default_mutations(self, function):
        arguments = function.args
        for default in list(arguments.defaults) + [d for d in arguments.kw_defaults if d is not None]:
            if not isinstance(default, ast.Constant):
                continue
            value = default.value
            if isinstance(value, bool):
                new = ast.Constant(not value)
            elif isinstance(value, int):
                new = ast.Constant(value + 1)
            elif isinstance(value, float):
                new = ast.Constant(value * 2 if value else 1.0)
            elif isinstance(value, str):
                new = ast.Constant(value + '_' if value else ' ')
            else:
                continue
            yield self.expr_mutation('wrong-default', default, new, f'default of {function.name}() {short(default)} -> {short(new)}'), function

    def return_mutations(self, function):
        body = function.body
        last = body[-1] if body else None
        if isinstance(last, ast.Return) and isinstance(last.value, ast.Name):
            name = last.value.id
            for stmt in body[:-2]:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []
                if any(isinstance(t, ast.Name) and t.id == name for t in targets) and self.owns_lines(stmt):
                    text = self.stmt_text(stmt) + self.indent_of(stmt) + f'return {name}\n'
                    yield self.body_mutation('early-return', stmt, [stmt, ast.Return(ast.Name(name, ast.Load()))], text, f'{function.name}() returns {name} right after line {stmt.lineno}'), stmt
                    break
        for node in self.own_nodes(function):
            if isinstance(node, ast.Return) and node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None) and self.owns_lines(node):
                parent = self.parents[id(node)][0]
                if isinstance(parent, ast.If):
                    new = ast.Expr(node.value)
                    text = self.indent_of(node) + ast.unparse(new) + '\n'
                    yield self.body_mutation('missing-return', node, [ast.copy_location(new, node)], text, f'return dropped from {short(node)}'), node

    def variable_mutations(self, function, nodes):
        kinds = {}
        order = {}
        for arg in function.args.posonlyargs + function.args.args + function.args.kwonlyargs:
            if arg.arg in ('self', 'cls'):
                continue
            kinds[arg.arg] = ast.unparse(arg.annotation) if arg.annotation is not None else None
            order[arg.arg] = function.lineno
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                value = node.value
                kind = type(value.value).__name__ if isinstance(value, ast.Constant) else type(value).__name__ if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.Tuple, ast.ListComp, ast.DictComp)) else None
                if name not in order or order[name] > node.lineno:
                    order[name] = node.lineno
                kinds.setdefault(name, kind)
        for node in nodes:
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in order):
                continue
            kind = kinds[node.id]
            choices = [other for other in sorted(order, key=lambda n: (-order[n], n))
                       if other != node.id and order[other] < node.lineno and kinds[other] == kind]
            if choices:
                other = choices[0]
                yield self.expr_mutation('replace-variable', node, ast.Name(other, ast.Load()), f'{node.id} replaced by {other} at line {node.lineno}'), node


def main():
    request = json.load(sys.stdin)
    operators = request.get('operators') or OPERATORS
    rejected = {}
    out = sys.stdout
    for path in request['files']:
        with open(f"{request['repo']}/{path}", encoding='utf-8') as handle:
            text = handle.read()
        try:
            mutator = FileMutator(path, text, operators)
        except SyntaxError:
            rejected['file:unparsable'] = rejected.get('file:unparsable', 0) + 1
            continue
        for candidate in mutator.candidates():
            out.write(json.dumps(candidate) + '\n')
        for key, count in mutator.rejected.items():
            rejected[key] = rejected.get(key, 0) + count
    out.write(json.dumps({'rejected': rejected}) + '\n')


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == '--operators':
        print(json.dumps(OPERATORS))
    else:
        main()
