# gnuplot/fig7_answer.gp - the answer: each mechanism's time over stream's per shape, smallest to largest, with 95% intervals (the README's figure)
# Run 20261204T165545Z. Run it in the figures directory:
#   LC_ALL=C gnuplot -d gnuplot/fig7_answer.gp
# It writes fig7_answer.svg and fig7_answer.png from the files under data/.
do for [fmt in "svg png"] {
    reset
    set datafile separator "\t"
    if (fmt eq "svg") {
        set terminal svg size 1000,300 font "Sans,14" noenhanced background "white"
    } else {
        set terminal pngcairo size 1000,300 font "Sans,14" noenhanced background "white"
    }
    set output "fig7_answer." . fmt
    set multiplot
    set label 100 "Fig. 7: time over stream's (below 1: faster), 95% intervals of one more run;\n4 runs on NVIDIA H200" at screen 0.01, screen 0.9600 left font "Sans,15"
    set lmargin at screen 0.075
    set rmargin at screen 0.77
    set tmargin at screen 0.8267
    set bmargin at screen 0.2800
    set yrange [0.500:1.250]
    set ytics 0.1 font "Sans,15"
    set grid ytics lc rgb "#e0e0e0"
    set ylabel "time / stream's time" font "Sans,15"
    set xrange [0.5:14.5]
    set xtics ("1x1" 1, "1x7" 2, "3x4097" 3, "5x4097" 4, "32x4096" 5, "2x100003" 6, "8x1048573" 7, "8x1048576" 8, "4x4194301" 9, "4096x4096" 10, "64x262144" 11, "4x4194304" 12, "1024x32768" 13, "256x1048576" 14) rotate by 30 right nomirror font "Sans,14"
    set arrow 1 from first 1.5, graph 0 to first 1.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 2 from first 2.5, graph 0 to first 2.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 3 from first 3.5, graph 0 to first 3.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 4 from first 4.5, graph 0 to first 4.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 5 from first 5.5, graph 0 to first 5.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 6 from first 6.5, graph 0 to first 6.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 7 from first 7.5, graph 0 to first 7.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 8 from first 8.5, graph 0 to first 8.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 9 from first 9.5, graph 0 to first 9.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 10 from first 10.5, graph 0 to first 10.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 11 from first 11.5, graph 0 to first 11.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 12 from first 12.5, graph 0 to first 12.5, graph 1 nohead lc rgb "#cccccc"
    set arrow 13 from first 13.5, graph 0 to first 13.5, graph 1 nohead lc rgb "#cccccc"
    set key at screen 0.78, screen 0.8567 left top vertical maxrows 8 Left reverse samplen 1 spacing 1 font "Sans,13"
    plot 1 with lines dt 2 lw 2 lc rgb "black" title "stream (= 1)", \
         "data/fig7_answer.tsv" index 0 using 1:2:3:4 with yerrorbars pt 6 ps 1.2 lw 2 lc rgb "#6baed6" title "graph", \
         "data/fig7_answer.tsv" index 1 using 1:2:3:4 with yerrorbars pt 5 ps 1.2 lw 2 lc rgb "#762a83" title "stream-pdl", \
         "data/fig7_answer.tsv" index 2 using 1:2:3:4 with yerrorbars pt 4 ps 1.2 lw 2 lc rgb "#de77ae" title "graph-pdl", \
         "data/fig7_answer.tsv" index 3 using 1:2:3:4 with yerrorbars pt 9 ps 1.2 lw 2 lc rgb "#a63603" title "fusion", \
         "data/fig7_answer.tsv" index 4 using 1:2:3:4 with yerrorbars pt 8 ps 1.2 lw 2 lc rgb "#fd8d3c" title "fusion-graph", \
         "data/fig7_answer.tsv" index 5 using 1:2:3:4 with yerrorbars pt 13 ps 1.2 lw 2 lc rgb "#006d2c" title "megakernel", \
         "data/fig7_answer.tsv" index 6 using 1:2:3:4 with yerrorbars pt 12 ps 1.2 lw 2 lc rgb "#74c476" title "megakernel-graph"
    unset multiplot
    set output
}
