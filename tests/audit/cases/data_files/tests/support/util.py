def write_report():
    open("report.html", "w")  # TF106: imported by a test, called at the root
