#!/usr/bin/env python3
"""judge-mlp.py — would a small MLP judge beat the logistic regression ski
ships? Both are fitted on the training catalog's candidates (their judge
features, labelled right when the skill is one the row expects) and scored
on dev and the unseen catalog by how many rows that need a skill keep a
right first candidate above a cut that lets through 3 % of the rows that
need none, and by the AUC of right first candidates against no-skill
rows' first ones.

A development tool, never on the hook's path; needs numpy (pip):

  E=bin/ski-eval; B="--background internal/judge/background.txt"
  $E --tsv testdata/judge/train/prompts.tsv --root testdata/judge/train/skills --features /tmp/f-train.ndjson $B
  $E --tsv ../shared/eval/dev.tsv --root ../shared/skills-corpus --features /tmp/f-dev.ndjson $B
  $E --tsv testdata/judge/unseen/prompts.tsv --root testdata/judge/unseen/skills --features /tmp/f-unseen.ndjson $B
  python3 research/judge-mlp.py /tmp/f-train.ndjson /tmp/f-dev.ndjson /tmp/f-unseen.ndjson
"""
import sys
import json

import numpy as np

def load(p):
    rows=[]
    for l in open(p):
        r=json.loads(l)
        if r['category']=='mention': continue
        exp={x for g in (r['expected'] or []) for x in g}
        cs=[c for c in r['cands'] if c.get('judge_features') and not c.get('mention')]
        rows.append((exp,[(np.array(c['judge_features'],float),c['id'] in exp) for c in cs]))
    return rows
if len(sys.argv) != 4:
    sys.exit(__doc__)
tr,dev,un=(load(p) for p in sys.argv[1:])
X=np.array([f for _,cs in tr for f,_ in cs]); Y=np.array([y for _,cs in tr for _,y in cs],float)
mu,sd=X.mean(0),X.std(0)+1e-9
def norm(x): return (x-mu)/sd
def fit_lr(X,Y,l2=1.0,it=3000,lr=0.1):
    Z=norm(X); w=np.zeros(Z.shape[1]); b=0.
    for _ in range(it):
        p=1/(1+np.exp(-(Z@w+b))); g=Z.T@(p-Y)/len(Y)+l2*w/len(Y); w-=lr*g; b-=lr*(p-Y).mean()
    return lambda x: 1/(1+np.exp(-(norm(x)@w+b)))
def fit_mlp(X,Y,h=12,l2=1e-3,it=4000,lr=0.01,seed=0):
    r=np.random.default_rng(seed); Z=norm(X); d=Z.shape[1]
    W1=r.normal(0,0.5,(d,h)); b1=np.zeros(h); W2=r.normal(0,0.5,h); b2=0.
    ms=[np.zeros_like(a) for a in (W1,b1,W2)]+[0.]; vs=[np.zeros_like(a) for a in (W1,b1,W2)]+[0.]
    for t in range(1,it+1):
        H=np.tanh(Z@W1+b1); p=1/(1+np.exp(-(H@W2+b2))); e=(p-Y)/len(Y)
        gW2=H.T@e+l2*W2; gb2=e.sum(); dH=np.outer(e,W2)*(1-H**2); gW1=Z.T@dH+l2*W1; gb1=dH.sum(0)
        for i,(P,G) in enumerate(((W1,gW1),(b1,gb1),(W2,gW2))):
            ms[i]=0.9*ms[i]+0.1*G; vs[i]=0.999*vs[i]+0.001*G*G
            P-=lr*(ms[i]/(1-0.9**t))/(np.sqrt(vs[i]/(1-0.999**t))+1e-8)
        ms[3]=0.9*ms[3]+0.1*gb2; vs[3]=0.999*vs[3]+0.001*gb2*gb2; b2-=lr*(ms[3]/(1-0.9**t))/(np.sqrt(vs[3]/(1-0.999**t))+1e-8)
    return lambda x: 1/(1+np.exp(-(np.tanh(norm(x)@W1+b1)@W2+b2)))
def gate(rows,pred):
    right=[];none=[];pos=0
    for exp,cs in rows:
        if not cs: 
            if exp: pos+=1
            continue
        ps=[float(pred(f[None,:])[0]) for f,_ in cs]
        top=ps[0]
        if exp:
            pos+=1
            if cs[0][1]: right.append(top)
        else: none.append(top)
    none=sorted(none,reverse=True); cut=none[int(0.03*len(none))]
    auc=np.mean([[a>b for b in none] for a in right])
    return auc, sum(r>cut for r in right)/pos, len(right)/pos
for name,f in [('LR',fit_lr(X,Y)),('MLP h8',fit_mlp(X,Y,h=8)),('MLP h16',fit_mlp(X,Y,h=16)),('MLP h16 l2 1e-2',fit_mlp(X,Y,h=16,l2=1e-2))]:
    for dn,rows in (('dev',dev),('unseen',un)):
        a,rec,top=gate(rows,f)
        print('%-16s %-6s AUC %.3f  injected-able at <=3%% no-skill %.1f%% (top-1 right %.1f%%)'%(name,dn,a,100*rec,100*top))
