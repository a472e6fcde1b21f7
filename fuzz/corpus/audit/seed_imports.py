from os.path import join as j, dirname as d
from . import x
from .. import *
import os.path as osp, tempfile as t
open(j(d(d(__file__)), '..', 'x'), 'a+')
t.mkdtemp(*args, **kw)
os.open('f', flags=os.O_RDWR)
