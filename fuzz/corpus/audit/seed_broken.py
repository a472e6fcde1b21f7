def f(:
  open('a', 'w'
class
  ))) ]]
'''unterminated
