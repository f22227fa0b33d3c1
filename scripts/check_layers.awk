# check_layers.awk - the symbol half of scripts/check_layers.sh. Input, one
# a line (sorted): "F FILE TYPE NAME", a symbol of FILE's object (nm -P
# type: U undefined, an upper-case letter defined), and "A HEADER:LINE
# NAME", a function declared in a header of the layers (gcc -aux-info).
# Variables: layers (lowest first, space-separated), nfiles (the include
# check's count). Prints one line per fault; exits 1 when there is any.
function layer(path) { sub(/\/.*/, "", path); return path }
BEGIN {
	nl = split(layers, L, " ")
	for (i = 1; i <= nl; i++) rank[L[i]] = i
}
$1 == "F" && $3 == "U" { nref++; rf[nref] = $2; rs[nref] = $4; next }
$1 == "F" && $3 ~ /^[A-Z]$/ {
	def[$4] = def[$4] " " $2
	if (!($4 in what)) what[$4] = $3 == "T" || $3 == "W" || $3 == "i" ? "calls" : "uses"
	objs[$2] = 1; ndef++
	next
}
$1 == "F" { objs[$2] = 1; next }
$1 == "A" { nd++; da[nd] = $2; dn[nd] = $3; next }
END {
	for (k = 1; k <= nref; k++) {
		f = rf[k]; s = rs[k]
		if (!(s in def)) continue
		n = split(def[s], D, " ")
		for (j = 1; j <= n; j++) {
			a = layer(f); b = layer(D[j])
			if (a == b) continue
			# the first reference from layer a to layer b, and how many more
			if (!((a, b) in edge)) edge[a, b] = f " " what[s] " " s "() of " D[j]
			else more[a, b]++
			reach[rank[a], rank[b]] = 1
			if (rank[b] > rank[a]) {
				printf "%s: %s %s(), defined in %s: %s is above %s\n", f, what[s], s, D[j], b, a
				bad++
			}
		}
	}
	# a circle: layers that reach each other (Floyd-Warshall on 11 layers)
	for (m = 1; m <= nl; m++)
		for (i = 1; i <= nl; i++)
			if (reach[i, m])
				for (j = 1; j <= nl; j++)
					if (reach[m, j]) reach[i, j] = 1
	for (i = 1; i <= nl; i++) {
		if (done[i] || !reach[i, i]) continue
		members = L[i]; refs = ""
		for (j = 1; j <= nl; j++)
			if (reach[i, j] && reach[j, i]) { done[j] = 1; if (j != i) members = members " <-> " L[j]; in_c[j] = i }
		for (a1 = 1; a1 <= nl; a1++)
			for (b1 = 1; b1 <= nl; b1++)
				if (in_c[a1] == i && in_c[b1] == i && (L[a1], L[b1]) in edge)
					refs = refs (refs == "" ? "" : "; ") L[a1] " -> " L[b1] ": " edge[L[a1], L[b1]] \
						(more[L[a1], L[b1]] ? " (and " more[L[a1], L[b1]] " more)" : "")
		printf "circle between layers %s: %s\n", members, refs
		bad++
	}
	# each folder defines the functions its headers declare
	for (k = 1; k <= nd; k++) {
		s = dn[k]; h = da[k]
		if (!(s in def) || !(layer(h) in rank)) continue
		n = split(def[s], D, " ")
		for (j = 1; j <= n; j++)
			if (layer(D[j]) != layer(h)) {
				printf "%s: declares %s(), defined in %s: %s/ defines what it declares\n", h, s, D[j], layer(h)
				bad++
			}
	}
	if (bad) {
		printf "layers: %d reference(s) go upward, close a circle or define another folder's function\n", bad
		exit 1
	}
	no = 0
	for (o in objs) no++
	printf "layers: %d files, every include goes downward; %d objects, %d symbols: every reference goes downward, no circle, every function defined in its header's folder\n", nfiles, no, ndef
}
