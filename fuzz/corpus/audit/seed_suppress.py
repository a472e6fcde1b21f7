open('a','w')  # testfence: ignore[TF106,TF101, TF9]
# testfence: ignore
open('b','w')
# testfence: ignore[
open('c','w')
