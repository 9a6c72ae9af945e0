; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "nvptx64-nvidia-cuda"

@local_barrier_local2 = internal addrspace(3) global [16 x float] poison, align 16

define ptx_kernel void @local_barrier(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, ptr addrspace(1) %out, i64 %3, i64 %4, i64 %5) {
entry:
  %l0 = alloca i64, align 8
  %l1 = alloca i64, align 8
  %l2 = alloca float, align 4
  %l3 = alloca i64, align 8
  %l4 = alloca i64, align 8
  %l5 = alloca float, align 4
  br label %b0

b0:                                               ; preds = %entry
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %z = zext i32 %ctaid to i64
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %z1 = zext i32 %ntid to i64
  %m = mul i64 %z, %z1
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %z2 = zext i32 %tid to i64
  %gid = add i64 %m, %z2
  store i64 %gid, ptr %l0, align 4
  %tid3 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %z4 = zext i32 %tid3 to i64
  store i64 %z4, ptr %l1, align 4
  %v = load i64, ptr %l0, align 4
  %t = mul i64 %v, 4
  %off = add i64 %0, %t
  %p = getelementptr i8, ptr addrspace(1) %a, i64 %off
  %ld = load float, ptr addrspace(1) %p, align 4
  store float %ld, ptr %l2, align 4
  %v5 = load i64, ptr %l1, align 4
  %t6 = mul i64 %v5, 1
  %lin = add i64 0, %t6
  %p7 = getelementptr float, ptr addrspace(3) @local_barrier_local2, i64 %lin
  %v8 = load float, ptr %l2, align 4
  store float %v8, ptr addrspace(3) %p7, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  store i64 15, ptr %l3, align 4
  %v9 = load i64, ptr %l3, align 4
  %v10 = load i64, ptr %l1, align 4
  %sub = sub i64 %v9, %v10
  store i64 %sub, ptr %l4, align 4
  %v11 = load i64, ptr %l4, align 4
  %t12 = mul i64 %v11, 1
  %lin13 = add i64 0, %t12
  %p14 = getelementptr float, ptr addrspace(3) @local_barrier_local2, i64 %lin13
  %ld15 = load float, ptr addrspace(3) %p14, align 4
  store float %ld15, ptr %l5, align 4
  %v16 = load i64, ptr %l0, align 4
  %t17 = mul i64 %v16, 4
  %off18 = add i64 %3, %t17
  %p19 = getelementptr i8, ptr addrspace(1) %out, i64 %off18
  %v20 = load float, ptr %l5, align 4
  store float %v20, ptr addrspace(1) %p19, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #0

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1

attributes #0 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #1 = { convergent nocallback nounwind }
