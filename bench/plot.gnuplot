# Run in bench/results/: loss.dat, metric.dat, cpu.dat (bench/report.py) -> loss.png
set terminal pngcairo size 1400,1100 font ",10" noenhanced
set output "loss.png"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key outside right top
set grid ytics
set xtics rotate by -20
set multiplot layout 3,1 title "shardrec vs perf record (medians; same events and -m per group)"
set title "lost-sample share (%): lost / (samples + lost)"
set ylabel "%"
plot for [i=2:*] "loss.dat" using i:xtic(1) title columnheader(i)
set title "data-loss metric (%): lost_time / elapsed"
plot for [i=2:*] "metric.dat" using i:xtic(1) title columnheader(i)
set title "recorder CPU seconds per captured MB (user+sys)"
set ylabel "s/MB"
plot for [i=2:*] "cpu.dat" using i:xtic(1) title columnheader(i)
unset multiplot
