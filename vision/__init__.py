"""mahjong-lens vision side: detector, grouping, photo and footage pipelines.

Heavy libraries (onnxruntime, cv2, torch, ultralytics) are imported inside the functions
that need them, so importing this package stays cheap.
"""
