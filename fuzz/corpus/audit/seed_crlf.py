open('x', 'w')
	Path('y').mkdir()
x = 1
