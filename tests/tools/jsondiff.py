# jsondiff.py A B - the members that differ between two files of JSON lines,
# record by record ("rec3.rates.commits_per_s 243.9 | 244.0"): what a
# failing byte-for-byte comparison prints.
import json,sys
a=[json.loads(l) for l in open(sys.argv[1])]; b=[json.loads(l) for l in open(sys.argv[2])]
def walk(x,y,p):
    if type(x)!=type(y): print(p, repr(x)[:200], '|', repr(y)[:200]); return
    if isinstance(x,dict):
        for k in sorted(set(x)|set(y)):
            if k not in x or k not in y: print(p+'.'+k, 'missing in', 'a' if k not in x else 'b', repr(x.get(k,y.get(k)))[:200]); continue
            walk(x[k],y[k],p+'.'+k)
    elif isinstance(x,list):
        if len(x)!=len(y): print(p,'len',len(x),len(y))
        for i,(u,v) in enumerate(zip(x,y)): walk(u,v,p+'[%d]'%i)
    elif x!=y: print(p, repr(x)[:200], '|', repr(y)[:200])
for i,(x,y) in enumerate(zip(a,b)):
    walk(x,y,'rec%d'%i)
