#!/usr/bin/env python3
"""query-adapter.py — can a small model trained here on CPU re-weigh the
embedding space for our catalogs? A diagonal adapter (one weight per
dimension of bge-small's vectors, applied to prompt and skill vectors
before the cosine) is fitted by gradient descent on the training catalog
(softmax over each row's ten best candidates; L2 pull towards 1), then
each catalog's rows are re-ranked with it. Prints top-1 (rows needing a
skill, mentions aside; a row whose expected skill is not among the ten
counts as wrong) for the replica without an adapter and with three
strengths of pull.

A development tool, never on the hook's path; needs numpy, onnxruntime and
tokenizers (pip) and the model scripts/setup.sh installs; ~2 minutes:

  E=bin/ski-eval
  $E --tsv testdata/judge/train/prompts.tsv --root testdata/judge/train/skills --candidates /tmp/train.ndjson
  $E --tsv ../shared/eval/dev.tsv --root ../shared/skills-corpus --candidates /tmp/dev.ndjson
  $E --tsv testdata/judge/unseen/prompts.tsv --root testdata/judge/unseen/skills --candidates /tmp/unseen.ndjson
  python3 scripts/query-adapter.py /tmp/train.ndjson /tmp/dev.ndjson /tmp/unseen.ndjson
"""
import json, re, sys, os

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer
M=os.path.join(os.environ.get('XDG_DATA_HOME', os.path.expanduser('~/.local/share')), 'ski/models/bge-small-en-v1.5-q/')
tok=Tokenizer.from_file(M+'tokenizer.json'); tok.enable_truncation(512)
so=ort.SessionOptions(); so.intra_op_num_threads=1
sess=ort.InferenceSession(M+'model.onnx',so); names=[i.name for i in sess.get_inputs()]
cache={}
def emb(t):
    if t in cache: return cache[t]
    ids=np.array([tok.encode(t).ids],dtype=np.int64)
    feed={'input_ids':ids,'attention_mask':np.ones_like(ids),'token_type_ids':np.zeros_like(ids)}
    v=sess.run(None,{n:feed[n] for n in names})[0][0][0]; v=v/np.linalg.norm(v); cache[t]=v; return v
PREFIX="Represent this sentence for searching relevant passages: "
WHEN=re.compile(r"(?i)when to (use|apply|invoke)|use this skill|use when|triggers?\b|use cases?")
def doc(path):
    s=open(path,encoding='utf-8',errors='replace').read()
    m=re.match(r"---\n(.*?)\n---\n?(.*)",s,re.S); fm,body=(m.group(1),m.group(2)) if m else ("",s)
    nm=re.search(r"^name:\s*(.*)$",fm,re.M); d=re.search(r"^description:\s*(.*(?:\n[ \t]+.*)*)",fm,re.M)
    name=(nm.group(1).strip() if nm else "").replace("-"," "); desc=re.sub(r"\s+"," ",d.group(1).strip().strip("\"'") if d else "")
    out=[];on=False;lvl=0
    for line in body.split("\n"):
        h=re.match(r"^(#{1,6})\s+(.*)",line)
        if h:
            if on and len(h.group(1))<=lvl: on=False
            if not on and WHEN.search(h.group(2)): on=True;lvl=len(h.group(1));continue
        if on: out.append(line)
    when=" ".join(" ".join(out).split())[:800]
    return name+": "+desc+((" "+when) if when else "")
def load(path):
    rows=[]
    for l in open(path):
        r=json.loads(l)
        if r['category']=='mention' or not r['expected']: continue
        exp={x for g in r['expected'] for x in g}
        sel=[s for s in r['selections'] if not s.get('mention')][:10]
        if not sel or not any(s['id'] in exp for s in sel): 
            rows.append(None); continue
        q=emb(PREFIX+r['prompt'])
        D=np.array([emb(doc(s['path'])) for s in sel])
        rest=np.array([s['score']-s['cosine'] for s in sel])
        y=np.array([s['id'] in exp for s in sel])
        rows.append((q,D,rest,y))
    return rows
def top1(rows,d):
    ok=0;n=0
    for r in rows:
        n+=1
        if r is None: continue
        q,D,rest,y=r
        qa=q*d; qa/=np.linalg.norm(qa)
        Da=D*d; Da/=np.linalg.norm(Da,axis=1,keepdims=True)
        ok+=y[np.argmax(rest+Da@qa)]
    return 100*ok/n
def train(rows,l2,epochs=200,lr=0.05):
    d=np.ones(384)
    data=[r for r in rows if r is not None]
    for ep in range(epochs):
        g=np.zeros(384); 
        for q,D,rest,y in data:
            qa=q*d; nq=np.linalg.norm(qa); Da=D*d; nd=np.linalg.norm(Da,axis=1)
            c=(Da@qa)/(nd*nq); s=(rest+c)*20; p=np.exp(s-s.max()); p/=p.sum()
            t=y/ y.sum(); dc=20*(p-t)  # d loss / d c
            # numerical-free gradient of c_i wrt d: c=sum(d^2 q D_i)/(|dq||dD_i|)
            for i in range(len(c)):
                if abs(dc[i])<1e-6: continue
                num=(d*d*q*D[i]).sum()
                gn=2*d*q*D[i]
                gq=d*q*q/nq; gD=d*D[i]*D[i]/nd[i]
                grad=(gn*nq*nd[i]-num*(gq*nd[i]+gD*nq))/(nq*nd[i])**2
                g+=dc[i]*grad
        g=g/len(data)+l2*(d-1)
        d-=lr*g
    return d
if len(sys.argv) != 4:
    sys.exit(__doc__)
tr,dev,un=(load(p) for p in sys.argv[1:])
print('baseline (python replica): train %.1f dev %.1f unseen %.1f'%(top1(tr,np.ones(384)),top1(dev,np.ones(384)),top1(un,np.ones(384))))
for l2,lr in [(0.01,2.0),(0.001,5.0),(0.0,10.0)]:
    d=train(tr,l2,epochs=150,lr=lr)
    print('diag adapter l2 %.2f: train %.1f dev %.1f unseen %.1f  (|d-1| %.3f)'%(l2,top1(tr,d),top1(dev,d),top1(un,d),np.abs(d-1).mean()))
