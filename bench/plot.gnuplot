# Run in bench/results/: loss.dat, metric.dat, cpu.dat (bench/report.py) -> loss.png
# One cluster per bench row (workload, -m), one bar per tool. loss.dat holds
# median, min, max per tool (drawn as bar and range), then "goal limit": the
# most shardrec's default may lose on that row (issue 15). cpu.dat ends with
# the goal's CPU limit (perf --threads' s/MB / 2).
set terminal pngcairo size 1600,1400 font ",10" noenhanced
set output "loss.png"
set style data histogram
set style fill solid 0.85 border -1
set key outside right top
set grid ytics
set xtics rotate by -20
# Ten distinct colours (tools, then the goal limit in grey): gnuplot's default
# cycle has eight, so a ninth tool would share a colour with the first.
colors = "#9400d3 #009e73 #56b4e9 #e69f00 #f0e442 #0072b2 #e51e10 #000000 #cc79a7 #a0a0a0"
do for [i=1:10] { set linetype i linecolor rgb word(colors, i) }
stats "cpu.dat" using 2 nooutput
ntools = STATS_columns - 2   # without the row label and the goal limit
set multiplot layout 3,1 title "shardrec vs perf record (medians; same events and -m per row)"

set title "lost-sample share (%), median with min-max: lost / (samples + lost); log scale, 0 and values below 0.001% drawn at 0.001%"
set style histogram errorbars gap 1 lw 1
set logscale y
set yrange [0.001:*]
set ylabel "%"
plot for [i=0:ntools] "loss.dat" using (column(2+3*i)):(column(3+3*i)):(column(4+3*i)):xtic(1) \
	title columnheader(2+3*i)
unset logscale y
set yrange [*:*]

set style histogram clustered gap 1
set title "data-loss metric (%): lost_time / elapsed"
plot for [i=2:ntools+1] "metric.dat" using i:xtic(1) title columnheader(i)

set title "recorder CPU seconds per captured MB (user+sys); goal limit = perf-threads / 2"
set ylabel "s/MB"
plot for [i=2:ntools+2] "cpu.dat" using i:xtic(1) title columnheader(i)
unset multiplot
