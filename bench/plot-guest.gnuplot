# Run in bench/results-guest/: loss.dat, metric.dat, plot.vars
# (bench/guest_report.py) -> loss.png. Loss against vCPU count, a line per
# tool: one panel per bench row and -m (lost-sample share), then the seed
# row's lost_time / elapsed (the seed's figure, redrawn).
load "plot.vars"
set terminal pngcairo size 1500,(420 * ((nblocks + nmetric + ncols - 1) / ncols) + 60) font ",10" noenhanced
set output "loss.png"
set key top left opaque box font ",8" samplen 3
set grid
set logscale x 2
set logscale y
set yrange [0.001:0.01<*]
set xtics (0)
set for [i=1:words(xtics)] xtics add (word(xtics, i) word(xtics, i) + 0)
set xrange [word(xtics, 1) / 1.3:word(xtics, words(xtics)) * 1.3]
set xlabel "vCPUs"
colors = "#9400d3 #009e73 #56b4e9 #e69f00 #0072b2 #e51e10 #000000 #cc79a7 #f0e442"
do for [i=1:9] { set linetype i linecolor rgb word(colors, i) linewidth 2 pointtype (i + 3) pointsize 1.2 }
# perf's tools dashed, shardrec's solid.
set multiplot layout ((nblocks + nmetric + ncols - 1) / ncols),ncols \
	title "shardrec vs perf record in TCG guests (4 NUMA nodes): median loss per tool; log scales, 0 and < 0.001% drawn at 0.001%"
set ylabel "lost samples (%)"
do for [b=0:nblocks-1] {
	set title value(sprintf("block_%d", b)) . ": lost-sample share"
	plot for [i=2:ntools+1] "loss.dat" index b using 1:i with linespoints \
		dashtype 1 + (i - 1 <= nperf) title columnhead(i)
	unset key # the tools are the same in every panel: one key
}
set ylabel "lost_time / elapsed (%)"
do for [b=0:nmetric-1] {
	set title value(sprintf("mblock_%d", b)) . ": lost_time / elapsed"
	plot for [i=2:ntools+1] "metric.dat" index b using 1:i with linespoints \
		dashtype 1 + (i - 1 <= nperf) title columnhead(i)
}
unset multiplot
