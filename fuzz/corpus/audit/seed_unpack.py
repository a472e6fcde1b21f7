a, (b, *c) = Path('x'), (Path('y'), 1)
for p, q in z: p.write_text()
with open('a','w') as (f, g): pass
[p.unlink() for p in Path('.').glob('*')]
