class T:
    P = Path('config.toml')
    def m(self):
        self.p = T.P
        self.p.write_text('')
        lambda q=Path('x'): q.unlink()
