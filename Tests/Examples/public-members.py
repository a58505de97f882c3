#!/usr/bin/env python3
"""Finds `public` members of `package` or internal types (issue 33: a member's keyword tells its real
visibility). usage: Tests/Examples/public-members.py [--fix] MODULE...  Lists each one as FILE:LINE
and exits 1 when there is any; --fix rewrites them (package on a package type, nothing on an
internal one). Scopes are followed by braces, outside comments and string literals."""
import re,sys,glob,collections
fix='--fix' in sys.argv
mods=[a for a in sys.argv[1:] if a!='--fix']
decl=re.compile(r'^\s*((?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*)((?:public|package|private|fileprivate|internal|open)\s+)?((?:(?:final|indirect|nonisolated)\s+)*)(struct|class|enum|protocol|actor|extension)\s+([A-Za-z_][A-Za-z_0-9.]*)')
changed=collections.Counter()
for mod in mods:
    files=glob.glob(f'Sources/{mod}/**/*.swift',recursive=True)
    access={}
    for f in files:
        for line in open(f):
            m=decl.match(line)
            if m and m.group(4)!='extension':
                a=(m.group(2) or 'internal').strip()
                access.setdefault(m.group(5),a)
    for f in files:
        lines=open(f).read().split('\n')
        out=[]; stack=[]; depth=0; pending=None
        for line in lines:
            code=re.sub(r'//.*','',line)
            code=re.sub(r'"(?:[^"\\]|\\.)*"','""',code)
            m=decl.match(line)
            # effective access of the innermost enclosing type scope
            # member line: directly inside a scope
            if stack and stack[-1][0]==depth and re.match(r'^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*public\s',line):
                eff=stack[-1][1]
                if eff in ('package','internal','private','fileprivate'):
                    if eff=='package':
                        line=re.sub(r'\bpublic\s','package ',line,count=1)
                    else:
                        line=re.sub(r'\bpublic\s','',line,count=1)
                    changed[f]+=1
                    print(f'{f}:{len(out)+1}: public member of a {eff} type')
                    m=decl.match(line)
            if m:
                kind=m.group(4); name=m.group(5)
                a=(m.group(2) or '').strip()
                if kind=='extension':
                    base=name.split('.')[-1]
                    eff=access.get(base,'public') if not a else a
                    if a=='public' and access.get(base) in ('package','internal'): eff=access.get(base)
                else:
                    eff=a or 'internal'
                    parent=stack[-1][1] if stack and stack[-1][0]==depth else None
                    order=['private','fileprivate','internal','package','public','open']
                    if parent and order.index(parent)<order.index(eff if eff!='open' else 'public'): eff=parent
                pending=eff
            for ch in code:
                if ch=='{':
                    depth+=1
                    if pending is not None: stack.append((depth,pending)); pending=None
                elif ch=='}':
                    if stack and stack[-1][0]==depth: stack.pop()
                    depth-=1
            out.append(line)
        new='\n'.join(out)
        if changed[f] and fix: open(f,'w').write(new)
total=sum(changed.values())
print(f'{total} public members of package or internal types in {len(changed)} files' + (' (fixed)' if fix and total else ''))
sys.exit(1 if total and not fix else 0)
